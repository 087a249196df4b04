import type { RelayMeter } from '../infra/metrics/relay-metrics.ts';
import {
  traceAttempt,
  traceAttemptFailed,
  traceEnd,
  traceFirstByte,
  traceStage,
  traceStart,
  traceUsage,
} from '../infra/tracing/relay-trace.ts';
import type { Hold, HoldRefusal } from '../ledger/balance.ts';
import type { Caller } from './admit/auth.ts';
import type { MinuteTicket } from './admit/limits/minute-limits.ts';
import type { Produced, RelayInput } from './admit/relay-input.ts';
import { streamInFormats } from './answer/format-answer.ts';
import { answerOperation } from './answer/operations/index.ts';
import { expectedTokens, holdFor, priceFor } from './billing/charge.ts';
import { CallAbort } from './call/call-abort.ts';
import { convertedUserPolicy } from './call/end-user-id.ts';
import { callFor, outgoingFor } from './call/upstream-request.ts';
import { guardPrompt } from './guardrails/prompt.ts';
import type { RelayReply, RelayRequest } from './http/exchange.ts';
import { adapterFor } from './providers/index.ts';
import { bodyOf } from './providers/response.ts';
import type { HeldCall, RelayCall } from './relay-call.ts';
import { failureStatus, RelayError, upstreamError } from './relay-error.ts';
import type { RelayState } from './relay-state.ts';
import { cacheSettingsFor, lookupCache } from './response-cache/index.ts';
import { conversationOf } from './route/affinity/conversation.ts';
import { runAttempts } from './route/attempts.ts';
import { mapStatus, shouldRetry } from './route/failover.ts';
import { withFallbacks } from './route/fallbacks/index.ts';
import { pinnedLease } from './route/router.ts';
import { settle } from './settle/settle.ts';
import type { ChannelEntry } from './table-cache/channels.ts';

export type { RelayInput } from './admit/relay-input.ts';

const now = () => performance.now();
const CLIENT_GONE = new DOMException('the client closed the request', 'AbortError');

/**
 * One relay request after authentication: model limits -> price -> hold -> attempts over channels
 * (retries move to other channels, failing keys may disable a channel) -> respond -> settle and log.
 * Measured when metrics are on.
 */
export function runRelay(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  caller: Caller,
  input: RelayInput,
): Promise<void> {
  const startedAt = now();
  const meter = state.metrics?.start(input.format, input.info.model, startedAt);
  traceStart(req, input);
  // Model fallbacks (relay/route/fallbacks/): when every channel of the model fails, the next model is tried.
  const run = (attempt: RelayInput) =>
    relay({ state, req, reply, caller, input: attempt, startedAt, meter, chain: [] });
  const relayed = () => withFallbacks(state, req, reply, caller, input, run);
  const done = traceEnd(req, meter ? measured(relayed, meter) : relayed());
  caller.probe?.track(done); // a compatibility check waits for its requests (modules/channels/compat)
  return done;
}

async function measured(relayed: () => Promise<void>, meter: RelayMeter): Promise<void> {
  try {
    await relayed();
    meter.end(200);
  } catch (err) {
    meter.end(failureStatus(err));
    throw err;
  }
}

async function relay(call: RelayCall): Promise<void> {
  const { state, req, reply, caller, input, meter, chain } = call;
  const { ctx } = state;
  const { info, mode } = input;
  const model = info.model;
  if (!caller.pinned && caller.token?.modelLimits && !caller.token.modelLimits.has(model)) {
    throw new RelayError(
      403,
      `this API key may not use model ${model}`,
      'invalid_request_error',
      'model_not_allowed',
      'model',
    );
  }
  const tiers = caller.pinned ? [] : state.channels.tiers(caller.group, model);
  if (!caller.pinned && tiers.length === 0) {
    // A model the gateway knows nothing of (no channel lists it, no price) is the client's mistake: 404, as
    // OpenAI answers. A known model without an available channel here is a gateway condition: 503.
    if (!state.channels.servedAnywhere(model) && !state.prices.model(model)) {
      throw new RelayError(
        404,
        `The model '${model}' does not exist or you do not have access to it`,
        'invalid_request_error',
        'model_not_found',
        'model',
      );
    }
    throw new RelayError(
      503,
      `no available channel for model ${model} in group ${caller.group}`,
      'new_api_error',
      'no_available_channel',
      'model',
    );
  }
  state.sensitive.check(input.json);
  // The steps below answer at once (undefined or null) when they have nothing to do, as for most requests: awaited
  // only when they return a promise, since each await costs a promise and a turn of the microtask queue.
  const guarded = guardPrompt(state, req, caller, input); // guardrails: prompt side (relay/guardrails)
  if (guarded) await guarded;
  const limited = state.rateLimit.acquire(caller.user.id, caller.group);
  const onSuccess = limited && (await limited);
  const price = priceFor(state, caller, model);
  // Response cache (relay/response-cache/): a hit is replayed and billed at the hit ratio; a miss is captured.
  const cacheFor = cacheSettingsFor(state, req, caller, input);
  const cache =
    cacheFor && (await lookupCache(cacheFor, state, req, reply, caller, input, price, call.startedAt, meter));
  if (cache === 'served') {
    onSuccess?.().catch((err) => req.log.warn({ err }, 'rate limit bookkeeping failed'));
    return;
  }
  const qpu = ctx.options.float('QuotaPerUnit');
  const preConsumed = ctx.options.int('PreConsumedQuota');
  const holdAmount = holdFor(mode, info, price, qpu, preConsumed);
  const expected = expectedTokens(mode, info, preConsumed);
  let perMinute: MinuteTicket | null = null;
  let hold: Hold;
  try {
    const admitted = state.minuteLimits.acquire(caller, model, expected.prompt + expected.answer, reply);
    perMinute = admitted && (await admitted);
    const holding = state.ledger.hold(
      caller.user.balance,
      caller.token?.balance,
      holdAmount,
      caller.token?.unlimited ?? true,
    );
    const verdict = holding instanceof Promise ? await holding : holding;
    if (typeof verdict === 'string') throw insufficientQuota(verdict);
    hold = verdict;
  } catch (err) {
    // Refused before any call (a per-minute limit, a used-up budget, a balance too low): nothing is held, and the
    // per-minute window gets its estimate back.
    cache?.drop();
    perMinute?.settle(0);
    throw err;
  }
  const held: HeldCall = Object.assign(call, { price, hold });

  // A conversation's turns stay on the channel and key that answered its last turn (relay/route/affinity).
  const conversation =
    caller.pinned || !state.channels.offersChoice(caller.group, model)
      ? undefined
      : conversationOf(input, req.headers);
  const affinityKey = conversation && `${caller.user.id}\n${model}\n${conversation.id}`;
  const remembered = affinityKey && conversation.continues ? state.affinity.get(affinityKey) : undefined;
  traceStage(req, 'routing');
  try {
    const { result: produced, ch } = await runAttempts(
      {
        state,
        group: caller.group,
        model,
        tiers,
        fixed: caller.pinned ? pinnedLease(caller.pinned) : null,
        retries: Math.max(0, ctx.options.int('RetryTimes')),
        remembered,
        chain,
        meter,
        judge: mapStatus,
        mayRetry: (e) => shouldRetry(e) && !reply.raw.headersSent,
        failed: (e, ch) => {
          traceAttemptFailed(req, e.status, e.message);
          if (!e.local)
            req.log.warn(
              { channel: ch.id, status: e.status, message: e.detail ?? e.message },
              'upstream attempt failed',
            );
        },
        none: () =>
          new RelayError(
            503,
            `no available channel for model ${model} in group ${caller.group}`,
            'new_api_error',
            'model_not_found',
          ),
      },
      (ch) => attemptOn(call, ch),
    );
    if (affinityKey) state.affinity.remember(affinityKey, { channelId: ch.id, keyIndex: ch.keyIndex });
    traceStage(req, 'settle');
    const quota = await settle(held, produced, ch);
    cache?.keep(produced); // response cache: keeps the answer written, when it may be kept
    traceUsage(req, produced.usage, produced.finish);
    meter?.answered(quota, produced.usage, produced.firstAt);
    perMinute?.settle(produced.usage.promptTokens + produced.usage.completionTokens);
    onSuccess?.().catch((err) => req.log.warn({ err }, 'rate limit bookkeeping failed'));
  } catch (err) {
    cache?.drop(); // response cache: nothing to keep
    state.ledger.release(hold);
    perMinute?.settle(0);
    throw err;
  }
}

function insufficientQuota(who: HoldRefusal): RelayError {
  const whose = who === 'user' ? 'your account balance' : "this API key's remaining quota";
  return new RelayError(
    403,
    `insufficient quota: ${whose} is too low for this request`,
    'insufficient_quota',
    'insufficient_quota',
  );
}

async function attemptOn(relayCall: RelayCall, ch: ChannelEntry): Promise<Produced> {
  const { state, req, reply, input, startedAt, meter } = relayCall;
  const adapter = adapterFor(ch.type);
  if (!adapter || (input.mode !== 'chat' && adapter.modes && !adapter.modes.has(input.mode)))
    throw new RelayError(
      503,
      `channel #${ch.id} is of a type this relay cannot call ${adapter ? `for ${input.mode}` : 'yet'}`,
      'new_api_error',
      'channel_type_unsupported',
      null,
      false,
    );
  const call = callFor(state.ctx.options, input, req.url, req.headers, ch, adapter);
  const passThrough = state.ctx.options.bool('global.pass_through_request_enabled');
  const out = outgoingFor(input, call, adapter, ch, req.id, passThrough, convertedUserPolicy(state.ctx));
  const url = adapter.url(ch, call);
  const bytes = typeof out.body === 'string' || Buffer.isBuffer(out.body) ? out.body : undefined;
  const headers = await adapter.headers(ch, call, url, bytes);
  if (out.json) {
    headers['content-type'] = 'application/json';
    headers.accept = call.stream ? 'text/event-stream' : 'application/json';
  }
  traceAttempt(req, ch, call.model, headers);

  const controller = new CallAbort();
  const relayMs = state.ctx.config.relayTimeoutSec * 1000;
  const timer =
    relayMs > 0
      ? setTimeout(() => controller.abort(new DOMException('relay timeout', 'TimeoutError')), relayMs)
      : undefined;
  // A client that leaves before its answer is written: stop waiting for the upstream, so the hold goes at once.
  const onClientGone = () => {
    if (!reply.raw.headersSent) controller.abort(CLIENT_GONE);
  };
  reply.raw.once('close', onClientGone);
  try {
    meter?.sent(ch.id);
    const res = adapter.send
      ? await adapter.send(
          {
            url,
            headers,
            body: String(out.body),
            stream: call.stream,
            signal: controller,
            options: state.ctx.options,
          },
          ch,
          call,
          (r) => state.upstream.send({ ...r, signal: controller, proxy: ch.proxy }),
        )
      : await state.upstream.send({
          url,
          headers,
          body: out.body,
          stream: call.stream,
          signal: controller,
          proxy: ch.proxy,
        });
    traceFirstByte(req, res.statusCode);
    const secrets = [ch.key, ch.baseUrl];
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await res.body.text().catch(() => '');
      throw upstreamError(res.statusCode, text, secrets);
    }
    if (call.stream && adapter.streamBody) res.body = bodyOf(adapter.streamBody(res.body, call));
    const exchange = { state, req, reply, input, call, out, res, adapter, controller, startedAt, ch, meter };
    return await (call.stream ? streamInFormats(exchange) : answerOperation(exchange));
  } catch (err) {
    if (controller.reason === CLIENT_GONE)
      throw new RelayError(499, 'the client closed the request', 'invalid_request_error', 'client_closed');
    throw err;
  } finally {
    meter?.received(call.stream);
    if (timer) clearTimeout(timer);
    reply.raw.off('close', onClientGone);
  }
}
