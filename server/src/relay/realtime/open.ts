import type WebSocket from 'ws';
import type { Caller } from '../admit/auth.ts';
import { priceFor } from '../billing/charge.ts';
import { tokensQuota } from '../billing/quota.ts';
import type { RelayRequest } from '../http/exchange.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { runAttempts } from '../route/attempts.ts';
import { mapStatus, shouldRetry } from '../route/failover.ts';
import { pinnedLease } from '../route/router.ts';
import type { ChannelEntry, Tier } from '../table-cache/channels.ts';
import type { SessionSetup } from './session.ts';
import { connectUpstream, REALTIME_TYPES, realtimeTarget } from './upstream-socket.ts';

export interface OpenedSession {
  upstream: WebSocket;
  setup: SessionSetup;
  /** Counts the session for the model request rate limit once the client has it. */
  succeeded(): void;
}

/** What the client asked for in the upgrade: the model, the protocol flavour, Azure's api-version. */
export interface RealtimeAsk {
  model: string;
  beta: boolean;
  apiVersion: string;
}

const unavailable = (model: string, group: string) =>
  new RelayError(
    503,
    `no available channel serves realtime sessions of model ${model} in group ${group}`,
    'new_api_error',
    'no_available_channel',
    'model',
  );

/** The caller's tiers for a model, keeping only channels whose type has the Realtime API. */
function realtimeTiers(state: RelayState, caller: Caller, model: string): Tier[] {
  return state.channels
    .tiers(caller.group, model)
    .map((t) => ({ ...t, channels: t.channels.filter((c) => REALTIME_TYPES.has(c.type)) }))
    .filter((t) => t.channels.length > 0);
}

/**
 * Everything a session needs before the client's upgrade completes, as a request would get it: model limits,
 * a realtime channel for the group and model, the model rate limit, the price, a hold for the first response,
 * and the upstream socket, with retries on other channels (and failing keys disabled) as for other calls.
 */
export async function openSession(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  ask: RealtimeAsk,
): Promise<OpenedSession> {
  const { ctx } = state;
  const { model } = ask;
  if (!model)
    throw new RelayError(
      400,
      'model is required: connect to /v1/realtime?model=<model>',
      'invalid_request_error',
      'model_required',
      'model',
    );
  if (!caller.pinned && caller.token?.modelLimits && !caller.token.modelLimits.has(model))
    throw new RelayError(
      403,
      `this API key may not use model ${model}`,
      'invalid_request_error',
      'model_not_allowed',
      'model',
    );
  const tiers = caller.pinned ? [] : realtimeTiers(state, caller, model);
  if (caller.pinned && !REALTIME_TYPES.has(caller.pinned.type))
    throw new RelayError(
      400,
      `channel #${caller.pinned.id} has no realtime API (only OpenAI and Azure channels have one)`,
      'invalid_request_error',
      'channel_type_unsupported',
    );
  if (!caller.pinned && tiers.length === 0) {
    if (!state.channels.servedAnywhere(model) && !state.prices.model(model))
      throw new RelayError(
        404,
        `The model '${model}' does not exist or you do not have access to it`,
        'invalid_request_error',
        'model_not_found',
        'model',
      );
    throw unavailable(model, caller.group);
  }
  const succeeded = await state.rateLimit.acquire(caller.user.id, caller.group);
  const price = priceFor(state, caller, model);
  // A response's cost has no bound before it runs (its context grows with the session): hold the estimate.
  const holdAmount = tokensQuota(
    0,
    ctx.options.int('PreConsumedQuota'),
    price,
    ctx.options.float('QuotaPerUnit'),
  );
  const hold = await state.ledger.hold(
    caller.user.balance,
    caller.token?.balance,
    { need: holdAmount, amount: holdAmount },
    caller.token?.unlimited ?? true,
  );
  if (typeof hold === 'string') {
    const who = hold === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new RelayError(
      403,
      `insufficient quota: ${who} is too low to open a realtime session`,
      'insufficient_quota',
      'insufficient_quota',
    );
  }

  const timeoutMs = ctx.config.streamingTimeoutSec * 1000;
  const upstreamModelOf = (ch: ChannelEntry) => ch.modelMapping[model] || model;
  try {
    const chain: number[] = [];
    const { result: upstream, ch } = await runAttempts(
      {
        state,
        group: caller.group,
        model,
        tiers,
        fixed: caller.pinned ? pinnedLease(caller.pinned) : null,
        retries: Math.max(0, ctx.options.int('RetryTimes')),
        chain,
        judge: mapStatus,
        mayRetry: shouldRetry,
        failed: (e, ch) => {
          if (!e.local)
            req.log.warn(
              { channel: ch.id, status: e.status, message: e.detail ?? e.message },
              'realtime upstream refused',
            );
        },
        none: () => unavailable(model, caller.group),
      },
      // The breaker judges the channel on opening the session; the session itself is not counted in flight.
      (ch) =>
        connectUpstream(
          ctx,
          ch,
          realtimeTarget(ch, upstreamModelOf(ch), ask.beta, ask.apiVersion),
          timeoutMs,
        ),
    );
    const upstreamModel = upstreamModelOf(ch);
    return {
      upstream,
      setup: { state, req, caller, model, upstreamModel, ch, chain, price, hold, holdAmount },
      succeeded: () => {
        succeeded?.().catch((err) => req.log.warn({ err }, 'rate limit bookkeeping failed'));
      },
    };
  } catch (err) {
    state.ledger.release(hold);
    throw err;
  }
}
