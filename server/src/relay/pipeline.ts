import { LogType } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FormData } from 'undici';
import type { Hold } from '../ledger/balance.ts';
import type { Caller } from './auth.ts';
import { holdFor, imageQuota, logContent, priceFor } from './billing/charge.ts';
import { type Price, textQuota, type Usage } from './billing/quota.ts';
import { countChatPrompt, countText } from './billing/tokenizer.ts';
import type { ChannelEntry } from './cache/channels.ts';
import { RelayError, upstreamError } from './errors.ts';
import { type Inspected, MODE_PATHS, type Mode } from './formats/openai/request.ts';
import { readUsage } from './formats/openai/usage.ts';
import { adapterFor } from './providers/index.ts';
import type { UpstreamCall } from './providers/types.ts';
import { autoDisable, mapStatus, pickChannel, shouldDisable, shouldRetry } from './routing.ts';
import type { RelayState } from './state.ts';
import { finishStream, relayStream } from './stream/relay-stream.ts';

/** A request ready to send: its parsed JSON body or its multipart form, and what inspection found. */
export interface RelayInput {
  mode: Mode;
  info: Inspected;
  json?: Record<string, unknown>;
  form?: FormData;
  /** Upload size in bytes (audio), for a duration estimate when the upstream reports none. */
  uploadBytes?: number;
}

/** What one successful attempt produced, for billing. */
interface Produced {
  usage: Usage;
  firstAt: number;
  note?: string;
}

const now = () => performance.now();

/**
 * One relay request after authentication: model limits -> price -> hold -> attempts over channels
 * (retries move to other channels, failing keys may disable a channel) -> respond -> settle and log.
 */
export async function runRelay(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  input: RelayInput,
): Promise<void> {
  const { ctx } = state;
  const startedAt = now();
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
    throw new RelayError(
      503,
      `no available channel for model ${model} in group ${caller.group}`,
      'new_api_error',
      'model_not_found',
      'model',
    );
  }
  state.sensitive.check(input.json);
  const onSuccess = await state.rateLimit.acquire(caller.user.id, caller.group);
  const price = priceFor(state, caller, model);
  const qpu = ctx.options.float('QuotaPerUnit');
  const holdAmount = holdFor(mode, info, price, qpu, ctx.options.int('PreConsumedQuota'));
  const hold = await state.ledger.hold(
    caller.user.balance,
    caller.token?.balance,
    holdAmount,
    caller.token?.unlimited ?? true,
  );
  if (typeof hold === 'string') {
    const who = hold === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new RelayError(
      403,
      `insufficient quota: ${who} is too low for this request`,
      'insufficient_quota',
      'insufficient_quota',
    );
  }

  const retries = caller.pinned ? 0 : Math.max(0, ctx.options.int('RetryTimes'));
  const tried = new Set<number>();
  const chain: number[] = [];
  let lastError: RelayError | null = null;
  let lastFailed: number | undefined;
  try {
    for (let attempt = 0; attempt <= retries; attempt++) {
      const ch = caller.pinned ?? pickChannel(tiers, tried, lastFailed);
      if (!ch) break;
      tried.add(ch.id);
      chain.push(ch.id);
      try {
        const produced = await attemptOn(state, req, reply, input, ch, startedAt);
        settle(state, req, caller, input, hold, price, produced, ch, chain, startedAt);
        onSuccess().catch((err) => req.log.warn({ err }, 'rate limit bookkeeping failed'));
        return;
      } catch (err) {
        if (!(err instanceof RelayError)) throw err;
        const e = mapStatus(err, ch);
        lastError = e;
        lastFailed = ch.id;
        if (shouldDisable(ctx, ch, e))
          void autoDisable(ctx, state.channels, ch, `status ${e.status}: ${e.message}`);
        if (!e.local)
          req.log.warn({ channel: ch.id, status: e.status, message: e.message }, 'upstream attempt failed');
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
    throw err;
  }
}

function buildCall(input: RelayInput, req: FastifyRequest, ch: ChannelEntry): UpstreamCall {
  const q = req.url.indexOf('?');
  return {
    mode: input.mode,
    path: MODE_PATHS[input.mode],
    model: ch.modelMapping[input.info.model] || input.info.model,
    stream: input.info.stream,
    query: q >= 0 ? req.url.slice(q + 1) : '',
  };
}

async function attemptOn(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  input: RelayInput,
  ch: ChannelEntry,
  startedAt: number,
): Promise<Produced> {
  const adapter = adapterFor(ch.type);
  if (!adapter)
    throw new RelayError(
      503,
      `channel #${ch.id} is of a type this relay cannot call yet`,
      'new_api_error',
      'channel_type_unsupported',
      null,
      false,
    );
  const call = buildCall(input, req, ch);
  const headers = adapter.headers(ch, call);
  let body: string | FormData;
  let outgoing: Record<string, unknown> | undefined;
  if (input.json && state.ctx.options.bool('global.pass_through_request_enabled')) {
    // Pass-through (an admin setting): the client's body goes upstream unchanged; billing still happens.
    outgoing = { ...input.json };
    body = JSON.stringify(outgoing);
    headers['content-type'] = 'application/json';
    headers.accept = call.stream ? 'text/event-stream' : 'application/json';
  } else if (input.json) {
    outgoing = { ...input.json, model: call.model };
    if (call.stream && adapter.streamUsage(ch)) {
      const so = input.json.stream_options;
      outgoing.stream_options = { ...(so && typeof so === 'object' ? so : {}), include_usage: true };
    } else delete outgoing.stream_options;
    adapter.prepareBody?.(outgoing, ch, call);
    if (ch.paramOverride) Object.assign(outgoing, ch.paramOverride);
    body = JSON.stringify(outgoing);
    headers['content-type'] = 'application/json';
    headers.accept = call.stream ? 'text/event-stream' : 'application/json';
  } else {
    const form = new FormData();
    for (const [k, v] of input.form ?? []) form.append(k, k === 'model' ? call.model : v);
    body = form;
  }

  const controller = new AbortController();
  const relayMs = state.ctx.config.relayTimeoutSec * 1000;
  const timer =
    relayMs > 0
      ? setTimeout(() => controller.abort(new DOMException('relay timeout', 'TimeoutError')), relayMs)
      : undefined;
  try {
    const res = await state.upstream.send({
      url: adapter.url(ch, call),
      headers,
      body,
      stream: call.stream,
      signal: controller.signal,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const text = await res.body.text().catch(() => '');
      throw upstreamError(res.statusCode, text, [ch.key, ch.baseUrl]);
    }
    const secrets = [ch.key, ch.baseUrl];
    if (call.stream)
      return await streamAttempt(state, req, reply, input, outgoing, call, res, controller, startedAt);
    if (input.mode === 'speech') {
      // Binary passthrough: the audio streams to the client as it arrives.
      reply
        .code(200)
        .header('content-type', String(res.headers['content-type'] ?? 'audio/mpeg'))
        .send(res.body);
      const chars = [...input.info.inputText].length;
      const prompt = call.model.startsWith('tts') ? chars : await countText(call.model, input.info.inputText);
      return { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 };
    }
    const text = await res.body.text();
    const contentType = String(res.headers['content-type'] ?? 'application/json');
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      if (contentType.includes('json'))
        throw new RelayError(
          502,
          'the upstream sent a malformed JSON body',
          'upstream_error',
          'bad_response_body',
          null,
          false,
        );
    }
    if (json && typeof json === 'object' && json.error && typeof json.error === 'object' && json.error.type) {
      throw upstreamError(500, text, secrets);
    }
    const usage = await usageOf(input, call, json, outgoing);
    reply.code(200).header('content-type', contentType).send(text);
    return { usage, firstAt: 0 };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Usage of a non-stream answer: the upstream's, else counted here. */
async function usageOf(
  input: RelayInput,
  call: UpstreamCall,
  json: any,
  outgoing?: Record<string, unknown>,
): Promise<Usage> {
  const { mode, info } = input;
  if (mode === 'images') return { promptTokens: info.images?.n ?? 1, completionTokens: 0, cachedTokens: 0 };
  if (mode === 'transcriptions' || mode === 'translations') {
    const u = json?.usage;
    if (u && (u.input_tokens || u.output_tokens)) return readUsage(u) ?? zero();
    let seconds = Number(u?.seconds ?? json?.duration);
    if (!Number.isFinite(seconds) || seconds <= 0) seconds = Math.max(1, (input.uploadBytes ?? 0) / 16000);
    return {
      promptTokens: Math.round((Math.ceil(seconds) / 60) * 1000),
      completionTokens: 0,
      cachedTokens: 0,
    };
  }
  const reported = readUsage(json?.usage);
  if (reported) return reported;
  if (mode === 'chat') {
    let text = '';
    let tools = 0;
    for (const c of json?.choices ?? []) {
      const m = c?.message ?? {};
      text += (m.content ?? '') + (m.reasoning_content ?? '');
      for (const t of m.tool_calls ?? []) {
        text += (t?.function?.name ?? '') + (t?.function?.arguments ?? '');
        tools++;
      }
    }
    return {
      promptTokens: await countChatPrompt(call.model, outgoing ?? {}),
      completionTokens: (await countText(call.model, text)) + 7 * tools,
      cachedTokens: 0,
    };
  }
  if (mode === 'completions') {
    const text = (json?.choices ?? []).map((c: any) => c?.text ?? '').join('');
    return {
      promptTokens: await countText(call.model, info.inputText),
      completionTokens: await countText(call.model, text),
      cachedTokens: 0,
    };
  }
  return { promptTokens: await countText(call.model, info.inputText), completionTokens: 0, cachedTokens: 0 };
}

const zero = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });

async function streamAttempt(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  input: RelayInput,
  outgoing: Record<string, unknown> | undefined,
  call: UpstreamCall,
  res: Awaited<ReturnType<RelayState['upstream']['send']>>,
  controller: AbortController,
  startedAt: number,
): Promise<Produced> {
  const { ctx } = state;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = String(v);
  const pingOn = ctx.options.bool('general_setting.ping_interval_enabled');
  const out = await relayStream(
    {
      res,
      raw: reply.raw,
      headers,
      wantsUsage: input.info.wantsUsage,
      pingSeconds: pingOn ? Math.max(1, ctx.options.int('general_setting.ping_interval_seconds')) : 0,
      abort: () => controller.abort(),
      onStart: () => reply.hijack(),
    },
    startedAt,
  );
  // A client that left before the first byte: let the framework drop the reply; billing still follows.
  if (out.clientGone && !reply.raw.headersSent) reply.hijack();
  let usage = out.usage;
  const counted = !usage;
  if (!usage) {
    const prompt =
      input.mode === 'chat'
        ? await countChatPrompt(call.model, outgoing ?? {})
        : await countText(call.model, input.info.inputText);
    const completion = (await countText(call.model, out.text)) + 7 * out.toolCalls;
    usage = { promptTokens: prompt, completionTokens: completion, cachedTokens: 0 };
  }
  const usageChunk =
    counted && input.info.wantsUsage
      ? {
          id: out.meta.id ?? `chatcmpl-${req.id}`,
          object: 'chat.completion.chunk',
          created: out.meta.created ?? Math.floor(Date.now() / 1000),
          model: out.meta.model ?? call.model,
          choices: [],
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.promptTokens + usage.completionTokens,
          },
        }
      : null;
  finishStream(reply.raw, out, usageChunk);
  const note = out.clientGone
    ? 'client disconnected mid-stream'
    : out.error
      ? `upstream failed mid-stream: ${out.error.message}`
      : undefined;
  return { usage, firstAt: out.firstAt, note };
}

function settle(
  state: RelayState,
  req: FastifyRequest,
  caller: Caller,
  input: RelayInput,
  hold: Hold,
  price: Price & { unset: boolean },
  produced: Produced,
  ch: ChannelEntry,
  chain: number[],
  startedAt: number,
): void {
  const { ctx } = state;
  const qpu = ctx.options.float('QuotaPerUnit');
  const { usage } = produced;
  const images = input.mode === 'images' ? input.info.images : undefined;
  const quota = images ? imageQuota(price, input.info.model, images, qpu) : textQuota(usage, price, qpu);
  const before = caller.user.balance.available + hold.amount;
  if (!state.ledger.settle(hold, quota)) return;
  const useMs = now() - startedAt;
  const upstreamModel = ch.modelMapping[input.info.model] || input.info.model;
  const mapped = upstreamModel !== input.info.model;
  const isStream = input.info.stream ? 1 : 0;
  const other: Record<string, unknown> = {
    model_ratio: price.modelRatio,
    group_ratio: price.groupRatio,
    completion_ratio: price.completionRatio,
    model_price: price.modelPrice,
    cache_tokens: usage.cachedTokens,
    cache_ratio: price.cacheRatio,
    frt: isStream ? produced.firstAt : -1,
    first_time: produced.firstAt,
    is_stream: isStream === 1,
    use_time: Math.round(useMs),
    request_id: req.id,
    admin_info: { use_channel: chain.map(String) },
  };
  if (mapped) {
    other.is_model_mapped = true;
    other.upstream_model_name = upstreamModel;
  }
  let content = logContent(price);
  if (chain.length > 1) content += `，重试：${chain.join('->')}`;
  if (produced.note) content += `（${produced.note}）`;
  const nothing = usage.promptTokens + usage.completionTokens === 0;
  state.writer.push({
    userId: caller.user.id,
    user: caller.user.balance,
    tokenId: caller.token?.id ?? 0,
    token: caller.token?.balance,
    channelId: ch.id,
    quota,
    countRequest: !nothing,
    log: ctx.options.bool('LogConsumeEnabled')
      ? {
          user_id: caller.user.id,
          created_at: Math.floor(Date.now() / 1000),
          type: LogType.Consume,
          content,
          username: caller.user.username,
          token_name: caller.tokenName,
          token_id: caller.token?.id ?? 0,
          model_name: input.info.model,
          quota,
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          use_time: Math.round(useMs / 1000),
          first_time: produced.firstAt,
          is_stream: isStream,
          channel_id: ch.id,
          group: caller.group,
          ip: req.ip ?? '',
          request_id: req.id,
          other: JSON.stringify(other),
        }
      : undefined,
  });
  if (quota > 0) state.notifier.afterCharge(caller.user, before, caller.user.balance.available);
}
