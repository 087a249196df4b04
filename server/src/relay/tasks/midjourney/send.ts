import type { Caller } from '../../admit/auth.ts';
import { RelayError, scrub } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { runAttempts } from '../../route/attempts.ts';
import { autoDisable, shouldRetry } from '../../route/failover.ts';
import type { Lease } from '../../route/router.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { taskRoute } from '../route.ts';
import type { SubmitKind } from './plan.ts';
import { ACCEPTED_CODES, failureBody, MjCode, MjError, type SubmitResult } from './protocol.ts';
import { callChannel, type MjReply, SUBMIT_TIMEOUT_MS } from './upstream.ts';

/** Channel types that speak midjourney-proxy: 2 Midjourney Proxy, 5 Midjourney Proxy Plus. */
export const MJ_CHANNEL_TYPES = new Set([2, 5]);
const PLUS = 5;

/** HTTP answers that say something about the channel (its secret, its address, its load), not the request. */
const CHANNEL_FAULTS = new Set([401, 403, 404, 408, 429]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A proxy's refusal of a submit, as the attempt loop judges it (by the upstream's own HTTP status, so a refused
 * secret is disabled as the relay disables a key), with the answer the client gets if no other channel takes it.
 */
export class MjRefusal extends RelayError {
  constructor(
    upstreamStatus: number,
    /** The status and body the client gets: the proxy's own answer with its description cleaned. */
    readonly answer: { status: number; body: SubmitResult },
    readonly channelId: number,
    /** Whether another channel may take the submit (the fault is the channel's, not the request's). */
    readonly retry: boolean,
    /** "No available account instance": the channel serves no one until its operator adds an account. */
    readonly noAccount: boolean,
  ) {
    super(upstreamStatus, answer.body.description, 'upstream_error', String(answer.body.code), null, false);
  }
}

export interface SubmitRoute {
  caller: Caller;
  kind: SubmitKind;
  mode: string | undefined;
  model: string;
  /** The parent task's channel or the admin's pinned one; null to route by group and model. */
  fixed: Lease | null;
  body: Record<string, unknown>;
}

/**
 * Sends a submit through the relay's attempt loop: the fixed channel, or channels chosen by group and model
 * (routing mode, circuit breaker), another one after a fault of the channel (connection, 5xx, 429, a refused
 * secret, which is disabled as the relay disables one, a full queue, no account instance) while RetryTimes
 * allows. Returns the proxy's acceptance (codes 1, 21, 22) and its channel; throws the last refusal (an
 * MjRefusal) or failure.
 */
export async function sendSubmit(
  state: RelayState,
  route: SubmitRoute,
): Promise<{ answer: SubmitResult; ch: ChannelEntry }> {
  const { caller, model, fixed } = route;
  const { result: answer, ch } = await runAttempts(
    {
      ...taskRoute(state, caller, model, fixed),
      mayRetry: (e) => (e instanceof MjRefusal ? e.retry : shouldRetry(e)),
      failed: (e, ch) => {
        if (!(e instanceof MjRefusal)) return;
        state.ctx.log.warn(
          { channel: ch.id, code: e.answer.body.code, message: e.message },
          'midjourney submit refused',
        );
        if (e.noAccount) void disableWithoutAccount(state, ch);
      },
      none: () =>
        new MjError(503, MjCode.Failure, `no available channel for ${model} in group ${caller.group}`),
    },
    async (ch) => {
      if (!MJ_CHANNEL_TYPES.has(ch.type))
        throw new MjError(503, MjCode.Failure, `channel #${ch.id} is not a Midjourney Proxy channel`);
      const res = await callChannel(state, ch, {
        method: 'POST',
        path: upstreamPath(route.kind, route.mode, ch.type),
        body: forwardBody(state, route.body),
        timeoutMs: SUBMIT_TIMEOUT_MS,
      });
      return judge(res, ch);
    },
  );
  return { answer, ch };
}

/**
 * Reads the proxy's answer to a submit: codes 1, 21 and 22 are a task taken. Anything else is refused with the
 * proxy's own answer (the channel's secret and address taken out), as a 502 for a server fault or a refused
 * secret, as sent for another 4xx, as a 200 for a refusal inside a 2xx. The channel's faults may be tried
 * elsewhere; a refusal of the request itself (a bad prompt, a missing task) is the client's to fix.
 */
function judge(res: MjReply, ch: ChannelEntry): SubmitResult {
  const answer = submitResultOf(res.json);
  const ok = res.status >= 200 && res.status < 300;
  if (answer && ok && ACCEPTED_CODES.has(answer.code)) return answer;
  const description = scrub(answer?.description || res.text.slice(0, 300) || `status ${res.status}`, [
    ch.key,
    ch.baseUrl,
  ]);
  const noAccount = answer?.code === MjCode.NotFound && /account|instance/i.test(description);
  const retry = ok
    ? !answer || answer.code === MjCode.QueueRejected || noAccount
    : res.status >= 500 || CHANNEL_FAULTS.has(res.status);
  const status = ok ? 200 : res.status >= 500 || res.status === 401 ? 502 : res.status;
  const body = { ...(answer ?? failureBody(MjCode.Failure, '')), description };
  throw new MjRefusal(res.status, { status, body }, ch.id, retry, noAccount);
}

/** "No available account instance": the channel cannot serve anyone; disabled when its auto-ban allows. */
async function disableWithoutAccount(state: RelayState, ch: ChannelEntry): Promise<void> {
  if (!ch.autoBan || !state.ctx.options.bool('AutomaticDisableChannelEnabled')) return;
  await autoDisable(state.ctx, state.channels, ch, 'midjourney-proxy: no available account instance');
}

/**
 * The body the upstream gets: `accountFilter` only with MjAccountFilterEnabled; never the client's notifyHook
 * (the gateway forwards changes itself), but the gateway's own `/mj/notify` with MjNotifyEnabled and a server
 * address; `--fast`, `--relax` and `--turbo` taken out of the prompt with MjModeClearEnabled.
 */
function forwardBody(state: RelayState, body: Record<string, unknown>): Record<string, unknown> {
  const o = state.ctx.options;
  const out = { ...body };
  if (!o.bool('MjAccountFilterEnabled')) delete out.accountFilter;
  delete out.notifyHook;
  const address = o.get('ServerAddress').trim().replace(/\/+$/, '');
  if (o.bool('MjNotifyEnabled') && address) out.notifyHook = `${address}/mj/notify`;
  if (o.bool('MjModeClearEnabled') && typeof out.prompt === 'string')
    out.prompt = out.prompt.replace(/\s*--(fast|relax|turbo)\b/g, '').trim();
  return out;
}

/** A speed prefix (`/mj-fast/mj/...`) goes to a Plus upstream as it came; the open-source proxy has none. */
function upstreamPath(kind: SubmitKind, mode: string | undefined, type: number): string {
  const path = kind === 'swap_face' ? '/mj/insight-face/swap' : `/mj/submit/${kind}`;
  return mode && type === PLUS ? `/${mode}${path}` : path;
}

function submitResultOf(json: unknown): SubmitResult | null {
  if (!isObject(json) || typeof json.code !== 'number') return null;
  const result = json.result;
  return {
    code: json.code,
    description: typeof json.description === 'string' ? json.description : '',
    result:
      typeof result === 'string' || Array.isArray(result)
        ? (result as string | string[])
        : result == null
          ? null
          : String(result),
    properties: isObject(json.properties) ? json.properties : {},
  };
}
