import { Readable } from 'node:stream';
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
import { conversationOf } from './affinity/conversation.ts';
import type { Caller } from './auth.ts';
import { expectedTokens, holdFor, priceFor } from './billing/charge.ts';
import { countText } from './billing/tokenizer.ts';
import type { ChannelEntry } from './cache/channels.ts';
import { CallAbort } from './call-abort.ts';
import { convertedUserPolicy } from './end-user.ts';
import { failureStatus, RelayError, upstreamError } from './errors.ts';
import type { RelayReply, RelayRequest } from './exchange.ts';
import { answerInFormats, malformedAnswer, streamInFormats } from './format-attempt.ts';
import { usageOf } from './formats/openai/answer-usage.ts';
import type { Produced, RelayInput } from './input.ts';
import { callFor, outgoingFor } from './outgoing.ts';
import { adapterFor } from './providers/index.ts';
import { bodyOf } from './providers/response.ts';
import type { UpstreamResponse } from './providers/types.ts';
import { outcomeOf, pinnedLease } from './router/router.ts';
import {
  autoDisable,
  autoDisableKey,
  hasOtherKey,
  mapStatus,
  shouldDisable,
  shouldRetry,
  withKey,
} from './routing.ts';
import { settle } from './settle.ts';
import type { RelayState } from './state.ts';
import { streamAttempt } from './stream/attempt.ts';
import { networkError } from './upstream.ts';

export type { RelayInput } from './input.ts';

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
  const run = traceEnd(
    req,
    meter
      ? measured(state, req, reply, caller, input, startedAt, meter)
      : relay(state, req, reply, caller, input, startedAt),
  );
  caller.probe?.track(run);
  return run;
}

async function measured(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  caller: Caller,
  input: RelayInput,
  startedAt: number,
  meter: RelayMeter,
): Promise<void> {
  try {
    await relay(state, req, reply, caller, input, startedAt, meter);
    meter.end(200);
  } catch (err) {
    meter.end(failureStatus(err));
    throw err;
  }
}

async function relay(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  caller: Caller,
  input: RelayInput,
  startedAt: number,
  meter?: RelayMeter,
): Promise<void> {
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
  const onSuccess = await state.rateLimit.acquire(caller.user.id, caller.group);
  const price = priceFor(state, caller, model);
  const qpu = ctx.options.float('QuotaPerUnit');
  const preConsumed = ctx.options.int('PreConsumedQuota');
  const holdAmount = holdFor(mode, info, price, qpu, preConsumed);
  const expected = expectedTokens(mode, info, preConsumed);
  const perMinute = await state.minuteLimits.acquire(caller, model, expected.prompt + expected.answer, reply);
  const hold = await state.ledger.hold(
    caller.user.balance,
    caller.token?.balance,
    holdAmount,
    caller.token?.unlimited ?? true,
  );
  if (typeof hold === 'string') {
    perMinute?.settle(0);
    const who = hold === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new RelayError(
      403,
      `insufficient quota: ${who} is too low for this request`,
      'insufficient_quota',
      'insufficient_quota',
    );
  }

  // A conversation's turns stay on the channel and key that answered its last turn (relay/affinity).
  const conversation =
    caller.pinned || !state.channels.offersChoice(caller.group, model)
      ? undefined
      : conversationOf(input, req.headers);
  const affinityKey = conversation && `${caller.user.id}\n${model}\n${conversation.id}`;
  const remembered = affinityKey && conversation.continues ? state.affinity.get(affinityKey) : undefined;
  const retries = caller.pinned ? 0 : Math.max(0, ctx.options.int('RetryTimes'));
  const tried = new Set<number>();
  const chain: number[] = [];
  let lastError: RelayError | null = null;
  let lastFailed: number | undefined;
  traceStage(req, 'routing');
  try {
    for (let attempt = 0; attempt <= retries; attempt++) {
      const sticky = attempt === 0 && remembered !== undefined;
      const lease = caller.pinned
        ? pinnedLease(caller.pinned)
        : (sticky && state.router.pickRemembered(remembered.channelId, tiers, tried)) ||
          state.router.pick(caller.group, model, tiers, tried, lastFailed);
      if (!lease) break;
      const picked = lease.channel;
      tried.add(picked.id);
      const ch = withKey(
        picked,
        sticky && remembered.channelId === picked.id ? remembered.keyIndex : undefined,
      );
      if (!ch) {
        lease.end('ignore');
        continue;
      }
      chain.push(ch.id);
      if (lastFailed !== undefined) meter?.retried(lastFailed, ch.id);
      try {
        const produced = await attemptOn(state, req, reply, input, ch, startedAt, meter);
        lease.end('ok');
        if (affinityKey) state.affinity.remember(affinityKey, { channelId: ch.id, keyIndex: ch.keyIndex });
        traceStage(req, 'settle');
        const quota = await settle(state, req, caller, input, hold, price, produced, ch, chain, startedAt);
        traceUsage(req, produced.usage);
        meter?.answered(quota, produced.usage, produced.firstAt);
        perMinute?.settle(produced.usage.promptTokens + produced.usage.completionTokens);
        onSuccess().catch((err) => req.log.warn({ err }, 'rate limit bookkeeping failed'));
        return;
      } catch (err) {
        lease.end(err instanceof RelayError ? outcomeOf(err) : 'ignore');
        if (!(err instanceof RelayError)) throw err;
        const e = mapStatus(err, ch);
        lastError = e;
        lastFailed = ch.id;
        traceAttemptFailed(req, e.status, e.message);
        if (shouldDisable(ctx, ch, e)) {
          const reason = `status ${e.status}: ${e.detail ?? e.message}`;
          if (ch.keyIndex === undefined) void autoDisable(ctx, state.channels, ch, reason);
          else {
            void autoDisableKey(ctx, state.channels, ch, reason);
            // The request the dead key would have served goes to the channel's other keys first.
            if (hasOtherKey(ch)) tried.delete(ch.id);
          }
        }
        if (!e.local)
          req.log.warn(
            { channel: ch.id, status: e.status, message: e.detail ?? e.message },
            'upstream attempt failed',
          );
        if (!shouldRetry(e) || reply.raw.headersSent) throw e;
      }
    }
    throw (
      lastError ??
      new RelayError(
        503,
        `no available channel for model ${model} in group ${caller.group}`,
        'new_api_error',
        'model_not_found',
      )
    );
  } catch (err) {
    state.ledger.release(hold);
    perMinute?.settle(0);
    throw err;
  }
}

async function attemptOn(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  input: RelayInput,
  ch: ChannelEntry,
  startedAt: number,
  meter?: RelayMeter,
): Promise<Produced> {
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
  const headers = await adapter.headers(ch, call, url, typeof out.body === 'string' ? out.body : undefined);
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
    if (input.format !== 'openai' || call.format !== 'openai') {
      const exchange = { state, req, reply, input, call, out, res, adapter, controller, startedAt };
      if (call.stream) return await streamInFormats(exchange);
      const answer = await readAnswer(res);
      meter?.received(false);
      return await answerInFormats(exchange, answer);
    }
    if (call.stream)
      return await streamAttempt(state, req, reply, input, out.json, call, res, controller, startedAt, ch);
    if (input.mode === 'speech') {
      // Binary passthrough: the audio streams to the client as it arrives.
      reply
        .code(200)
        .header('content-type', String(res.headers['content-type'] ?? 'audio/mpeg'))
        .send(Readable.from(res.body));
      const chars = [...input.info.inputText].length;
      const prompt = call.model.startsWith('tts') ? chars : await countText(call.model, input.info.inputText);
      return { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 };
    }
    const text = await readAnswer(res);
    meter?.received(false);
    const contentType = String(res.headers['content-type'] ?? 'application/json');
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      if (contentType.includes('json')) throw malformedAnswer();
    }
    if (json && typeof json === 'object' && json.error && typeof json.error === 'object' && json.error.type) {
      throw upstreamError(500, text, secrets);
    }
    const usage = await usageOf(input, call, json, out.json);
    reply.code(200).header('content-type', contentType).send(text);
    return { usage, firstAt: 0 };
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

/** A non-stream answer's body. A connection lost while reading it is a retryable 502 (504 on a timeout). */
async function readAnswer(res: UpstreamResponse): Promise<string> {
  try {
    return await res.body.text();
  } catch (err) {
    const e = networkError(err);
    if (e.status !== 502) throw e;
    throw new RelayError(
      502,
      'the upstream connection broke before its answer was complete',
      'upstream_error',
      'upstream_body_incomplete',
      null,
      false,
    );
  }
}
