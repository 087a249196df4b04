import { ChannelStatus } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../infra/envelope.ts';
import { assertFetchableUrl, userUrlPolicy } from '../../infra/ssrf.ts';
import type { Hold } from '../../ledger/balance.ts';
import { authenticate, type Caller, checkAllowedIp } from '../auth.ts';
import type { Outcome } from '../breaker/index.ts';
import type { ChannelEntry } from '../cache/channels.ts';
import { RelayError, scrub } from '../errors.ts';
import { type Lease, outcomeOf, pinnedLease } from '../router/router.ts';
import { autoDisable, withKey } from '../routing.ts';
import type { RelayState } from '../state.ts';
import { chargeTask, holdTask, taskPrice } from '../tasks/charge.ts';
import { MJ_FALLBACK_PRICE, MjAction, modelOf } from './actions.ts';
import { planSubmit, type SubmitKind, type SubmitPlan } from './plan.ts';
import { ACCEPTED_CODES, invalid, MjCode, MjError, MjStatus, type SubmitResult } from './protocol.ts';
import { insertTask } from './store.ts';
import { callChannel, SUBMIT_TIMEOUT_MS } from './upstream.ts';

/** Channel types that speak midjourney-proxy: 2 Midjourney Proxy, 5 Midjourney Proxy Plus. */
export const MJ_CHANNEL_TYPES = new Set([2, 5]);
const PLUS = 5;

/** Speed prefixes (`/mj-fast/mj/...`): Plus upstreams take them as they are; the open-source proxy has none. */
export const MODES = new Set(['mj-fast', 'mj-turbo', 'mj-relax']);

/** Whether a body is a plain JSON object. */
const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * One submit: authenticate -> check the body -> route by `mj_<action>` (a follow-up goes to its parent task's
 * channel) -> hold the fixed price -> forward to the proxy -> charge when it took the task (codes 1, 21, 22),
 * release at once when it refused -> record the task -> answer with the proxy's own answer.
 */
export async function submit(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  kind: SubmitKind,
  mode: string | undefined,
): Promise<void> {
  const startedAt = performance.now();
  const { ctx } = state;
  const caller = await authenticate(state, req, { mjSecret: true });
  checkAllowedIp(caller.token, req.ip);
  const body = req.body;
  if (!isObject(body)) throw invalid('the request body must be a JSON object');
  const plan = await planSubmit(ctx, caller.user.id, kind, body);
  if (plan.prompt) state.sensitive.check({ prompt: plan.prompt });
  const model = modelOf(plan.action);
  if (!caller.pinned && caller.token?.modelLimits && !caller.token.modelLimits.has(model))
    throw new MjError(403, MjCode.ValidationError, `this API key may not use ${model}`);
  const lease = leaseFor(state, caller, plan, model);
  // What the breaker learns from this submit: only the upstream's own failures count against the channel.
  let outcome: Outcome = 'ignore';
  try {
    const job = { caller, plan, kind, mode, model, ch: lease.channel, startedAt };
    outcome = await submitOn(state, req, reply, job);
  } catch (err) {
    if (err instanceof RelayError) outcome = outcomeOf(err);
    throw err;
  } finally {
    lease.end(outcome);
  }
}

interface SubmitJob {
  caller: Caller;
  plan: SubmitPlan;
  kind: SubmitKind;
  mode: string | undefined;
  model: string;
  ch: ChannelEntry;
  startedAt: number;
}

/** The submit once its channel is chosen; says how the upstream did. */
async function submitOn(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  { caller, plan, kind, mode, model, ch, startedAt }: SubmitJob,
): Promise<Outcome> {
  const { ctx } = state;
  const body = req.body as Record<string, unknown>;
  const hook = await notifyHookOf(state, body);

  const price = taskPrice(state, caller.group, model, MJ_FALLBACK_PRICE);
  const held = await holdTask(state, caller, price.quota);
  if (typeof held === 'string') {
    const who = held === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new MjError(403, MjCode.ValidationError, `insufficient quota: ${who} is too low for ${model}`);
  }
  const hold: Hold | null = held;
  let res: Awaited<ReturnType<typeof callChannel>>;
  try {
    res = await callChannel(state, ch, {
      method: 'POST',
      path: upstreamPath(kind, mode, ch.type),
      body: forwardBody(state, body),
      timeoutMs: SUBMIT_TIMEOUT_MS,
    });
  } catch (err) {
    if (hold) state.ledger.release(hold);
    throw err;
  }
  const answer = submitResultOf(res.json);
  const accepted =
    answer !== null && res.status >= 200 && res.status < 300 && ACCEPTED_CODES.has(answer.code);
  if (!accepted) {
    if (hold) state.ledger.release(hold);
    const secrets = [ch.key, ch.baseUrl];
    const description = scrub(
      answer?.description || res.text.slice(0, 300) || `status ${res.status}`,
      secrets,
    );
    if (answer?.code === MjCode.NotFound && /account|instance/i.test(description))
      void maybeDisable(state, ch);
    await recordRefusal(state, caller, plan, ch, answer?.code ?? MjCode.Failure, description);
    const status =
      res.status >= 200 && res.status < 300
        ? 200
        : res.status >= 500 || res.status === 401
          ? 502
          : res.status;
    reply
      .code(status)
      .send({ ...(answer ?? { code: MjCode.Failure, result: null, properties: {} }), description });
    return res.status >= 500 ? 'fail' : 'ignore';
  }

  const mjId = typeof answer.result === 'string' ? answer.result : '';
  const now = Date.now();
  const done = doneState(plan.action, answer);
  try {
    await insertTask(ctx, {
      code: answer.code,
      user_id: caller.user.id,
      token_id: caller.token?.id ?? 0,
      group: caller.group,
      action: plan.action,
      mj_id: mjId,
      prompt: plan.prompt,
      prompt_en: '',
      description: scrub(answer.description ?? '', [ch.key, ch.baseUrl]),
      state: typeof body.state === 'string' ? body.state : '',
      submit_time: now,
      start_time: done ? now : 0,
      finish_time: done ? now : 0,
      image_url: done?.imageUrl ?? '',
      status: done
        ? MjStatus.Success
        : answer.code === MjCode.InQueue
          ? MjStatus.NotStart
          : MjStatus.Submitted,
      progress: done ? '100%' : '0%',
      fail_reason: '',
      channel_id: ch.id,
      quota: hold ? price.quota : 0,
      buttons: '',
      properties: '',
      updated_at: now,
      notify_hook: hook,
      video_url: '',
    });
  } catch (err) {
    if (hold) state.ledger.release(hold);
    req.log.error({ err }, 'recording a midjourney task failed');
    throw new MjError(500, MjCode.Failure, `the task was submitted as ${mjId} but could not be recorded`);
  }
  await chargeTask(state, caller, hold, {
    price,
    channelId: ch.id,
    taskId: mjId,
    action: plan.action,
    requestId: req.id,
    ip: req.ip,
    startedAt,
  });
  reply.code(200).send(answer);
  return 'ok';
}

/**
 * The channel a submit goes to: its parent's for a follow-up and the admin's pinned one as they are, else routed
 * by group and model (routing mode and circuit breaker).
 */
function leaseFor(
  state: RelayState,
  caller: Caller,
  plan: SubmitPlan,
  model: string,
): Lease & { channel: ChannelEntry } {
  let lease: Lease | null;
  if (plan.parent) {
    const parent = state.channels.get(plan.parent.channel_id);
    if (!parent || parent.status !== ChannelStatus.Enabled)
      throw new MjError(
        400,
        MjCode.ValidationError,
        "the channel of this task's parent is no longer available",
      );
    lease = pinnedLease(parent);
  } else if (caller.pinned) {
    lease = pinnedLease(caller.pinned);
  } else {
    lease = state.router.pick(caller.group, model, state.channels.tiers(caller.group, model), new Set());
  }
  const ch = lease ? withKey(lease.channel) : null;
  if (!lease || !ch || !MJ_CHANNEL_TYPES.has(ch.type)) {
    lease?.end('ignore');
    if (!ch)
      throw new MjError(503, MjCode.Failure, `no available channel for ${model} in group ${caller.group}`);
    throw new MjError(503, MjCode.Failure, `channel #${ch.id} is not a Midjourney Proxy channel`);
  }
  return { channel: ch, end: lease.end };
}

/** The client's notifyHook, kept for forwarding when MjNotifyEnabled is on; refused when the guard refuses it. */
async function notifyHookOf(state: RelayState, body: Record<string, unknown>): Promise<string> {
  const hook = typeof body.notifyHook === 'string' ? body.notifyHook.trim() : '';
  if (!hook || !state.ctx.options.bool('MjNotifyEnabled')) return '';
  try {
    await assertFetchableUrl(hook, userUrlPolicy(state.ctx.options));
  } catch (err) {
    throw invalid(`notifyHook is not allowed: ${err instanceof ApiError ? err.message : 'invalid URL'}`);
  }
  return hook;
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

/** A task finished by its submit answer: an upload, or `21 exists` for a task that already succeeded. */
function doneState(action: MjAction, a: SubmitResult): { imageUrl: string } | null {
  if (action === MjAction.Upload)
    return { imageUrl: Array.isArray(a.result) ? String(a.result[0] ?? '') : '' };
  if (a.code === MjCode.Existed && a.properties.status === MjStatus.Success)
    return { imageUrl: typeof a.properties.imageUrl === 'string' ? a.properties.imageUrl : '' };
  return null;
}

/** A refused submit stays visible in the drawing log as a failure that cost nothing. */
async function recordRefusal(
  state: RelayState,
  caller: Caller,
  plan: SubmitPlan,
  ch: ChannelEntry,
  code: number,
  reason: string,
): Promise<void> {
  const now = Date.now();
  try {
    await insertTask(state.ctx, {
      code,
      user_id: caller.user.id,
      token_id: caller.token?.id ?? 0,
      group: caller.group,
      action: plan.action,
      mj_id: '',
      prompt: plan.prompt,
      prompt_en: '',
      description: reason,
      state: '',
      submit_time: now,
      start_time: 0,
      finish_time: now,
      image_url: '',
      status: MjStatus.Failure,
      progress: '100%',
      fail_reason: reason,
      channel_id: ch.id,
      quota: 0,
      buttons: '',
      properties: '',
      updated_at: now,
      notify_hook: '',
      video_url: '',
    });
  } catch (err) {
    state.ctx.log.error({ err }, 'recording a refused midjourney submit failed');
  }
}

/** "No available account instance": the channel cannot serve anyone; disabled when its auto-ban allows. */
async function maybeDisable(state: RelayState, ch: ChannelEntry): Promise<void> {
  if (!ch.autoBan || !state.ctx.options.bool('AutomaticDisableChannelEnabled')) return;
  await autoDisable(state.ctx, state.channels, ch, 'midjourney-proxy: no available account instance');
}
