import type { Usage } from './billing/quota.ts';
import { countText } from './billing/tokenizer.ts';
import type { CallAbort } from './call-abort.ts';
import { RelayError } from './errors.ts';
import type { RelayReply, RelayRequest } from './exchange.ts';
import { codecFor, upstreamCodecFor } from './formats/codecs.ts';
import { sseData, sseEvent } from './formats/common.ts';
import { embeddingList, geminiEmbedAnswer, openaiEmbedAnswer } from './formats/embeddings.ts';
import { sealAnswer } from './formats/envelope/answer.ts';
import { envelopeKeyOf } from './formats/envelope/keys.ts';
import { sealingEncoder } from './formats/envelope/stream.ts';
import { DROPPED_TOOLS_HEADER } from './formats/hosted-tools.ts';
import type { CodecContext, HubError, HubRequest, HubUsage, WireFormat } from './formats/hub.ts';
import { countPrompt, usageFromHub } from './formats/hub-count.ts';
import { answerBlocked, guardAnswerParts } from './guardrails/whole-answer.ts';
import type { Produced, RelayInput } from './input.ts';
import type { Outgoing } from './outgoing.ts';
import type { ProviderAdapter, UpstreamCall, UpstreamResponse } from './providers/types.ts';
import type { RelayState } from './state.ts';
import { relayFormatStream } from './stream/format-stream.ts';

/** One attempt's parts, once the upstream has answered 2xx. */
export interface FormatExchange {
  state: RelayState;
  req: RelayRequest;
  reply: RelayReply;
  input: RelayInput;
  call: UpstreamCall;
  out: Outgoing;
  res: UpstreamResponse;
  adapter: ProviderAdapter;
  controller: CallAbort;
  startedAt: number;
}

export const malformedAnswer = () =>
  new RelayError(
    502,
    'the upstream sent a malformed JSON body',
    'upstream_error',
    'bad_response_body',
    null,
    false,
  );

const upstreamCtx = (x: FormatExchange): CodecContext => ({
  model: x.call.model,
  stream: x.call.stream,
  requestId: x.req.id,
});

const clientCtx = (x: FormatExchange): CodecContext => ({
  model: x.input.info.model,
  stream: x.input.info.stream,
  requestId: x.req.id,
  includeUsage: x.input.info.wantsUsage,
  jsonArray: x.input.jsonArray,
  // A Responses client's freeform tools (Codex's apply_patch) were called as functions upstream; the client
  // must get custom_tool_call items back.
  customTools: x.input.hub?.tools.filter((t) => t.custom).map((t) => t.name),
});

/**
 * A non-stream answer when the client or the channel speaks something other than OpenAI chat. Same format:
 * the upstream's body goes to the client as it came, and its usage is read through the format's codec.
 * Another format: decoded into the hub and encoded in the client's format.
 */
export async function answerInFormats(x: FormatExchange, text: string): Promise<Produced> {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformedAnswer();
  }
  if (x.input.mode === 'embeddings') return embeddingsAnswer(x, json, text);
  noteDroppedTools(x);
  const answer = upstreamCodecFor(x.call.format).decodeResponse(json, upstreamCtx(x));
  const usage = await billable(x, answer.usage, () => answerText(answer.parts));
  const guard = x.input.answerGuard?.(); // guardrails: answer side (a masked answer is re-encoded)
  if (guard) guardAnswerParts(guard, answer.parts);
  if (x.out.converted || guard) {
    const parts = sealAnswer(answer.parts, x.call.format, x.input.format, envelopeKeyOf(x.call.options));
    x.reply.code(200).send(codecFor(x.input.format).encodeResponse({ ...answer, parts }, clientCtx(x)));
  } else x.reply.code(200).header('content-type', 'application/json').send(text);
  return { usage, firstAt: 0 };
}

/**
 * Embeddings between OpenAI's and Gemini's formats. Gemini reports no usage for embeddings, so its prompt is
 * counted here; OpenAI's count is used when it gives one.
 */
async function embeddingsAnswer(x: FormatExchange, json: any, text: string): Promise<Produced> {
  const own =
    x.call.format !== 'openai' && x.call.format !== 'gemini' ? x.adapter.embeddings?.answer(json) : undefined;
  const counted = await countText(x.call.model, x.input.info.inputText);
  const reported = own
    ? own.promptTokens
    : x.call.format === 'openai'
      ? Number(json?.usage?.prompt_tokens) || 0
      : 0;
  const prompt = reported || counted;
  // A provider's own answer reads as OpenAI's from here on (floats, which a Gemini client gets).
  if (own) json = embeddingList(own.vectors, x.input.info.model, prompt);
  const base64 = x.input.json?.encoding_format === 'base64';
  if (!x.out.embedConverted) x.reply.code(200).header('content-type', 'application/json').send(text);
  else if (x.input.format === 'gemini')
    x.reply.code(200).send(geminiEmbedAnswer(json, x.input.embedBatch === true));
  else if (own) x.reply.code(200).send(embeddingList(own.vectors, x.input.info.model, prompt, base64));
  else x.reply.code(200).send(openaiEmbedAnswer(json, x.input.info.model, prompt, base64));
  return { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 };
}

/** A streamed answer in any pair of formats: converted event by event, or forwarded as it came. */
export async function streamInFormats(x: FormatExchange): Promise<Produced> {
  const { reply, state } = x;
  noteDroppedTools(x);
  const pingOn = state.ctx.options.bool('general_setting.ping_interval_enabled');
  const array = x.input.jsonArray === true;
  const guard = x.input.answerGuard?.(); // guardrails: answer side (re-encodes a same-format stream to check it)
  const encoder = x.out.converted
    ? sealingEncoder(
        codecFor(x.input.format).streamEncoder(clientCtx(x)),
        x.call.format,
        x.input.format,
        envelopeKeyOf(x.call.options),
      )
    : guard
      ? codecFor(x.input.format).streamEncoder(clientCtx(x))
      : undefined;
  const outcome = await relayFormatStream(
    {
      res: x.res,
      raw: reply.raw,
      headers: reply.getHeaders(),
      contentType: array ? 'application/json; charset=utf-8' : undefined,
      pingSeconds:
        pingOn && !array ? Math.max(1, state.ctx.options.int('general_setting.ping_interval_seconds')) : 0,
      abort: () => x.controller.abort(),
      onStart: () => reply.hijack(),
      decoder: upstreamCodecFor(x.call.format).streamDecoder(upstreamCtx(x)),
      newDecoder: () => upstreamCodecFor(x.call.format).streamDecoder(upstreamCtx(x)),
      encoder,
      arrayFrames: array && !encoder,
      errorFrame: (err) => streamErrorFrame(x.input.format, err, x.req.id),
      guard,
    },
    x.startedAt,
  );
  if (outcome.clientGone && !reply.raw.headersSent) reply.hijack();
  // A stream cut short may carry only the usage of its start (Anthropic's message_start): the output is at
  // least what reached the client.
  const cut = outcome.clientGone || outcome.error !== null;
  const usage = await billable(
    x,
    outcome.usage,
    () => ({ text: outcome.text, calls: outcome.toolCalls }),
    cut,
  );
  if (guard?.blocked) return { usage, firstAt: outcome.firstAt, ...answerBlocked(guard) };
  const note = outcome.clientGone
    ? 'client disconnected mid-stream'
    : outcome.error
      ? `upstream failed mid-stream: ${outcome.error.message}`
      : undefined;
  return { usage, firstAt: outcome.firstAt, note };
}

/** The hosted tools the request went without (the operator allows dropping them), said in a header. */
function noteDroppedTools(x: FormatExchange): void {
  if (x.out.droppedTools?.length) x.reply.header(DROPPED_TOOLS_HEADER, x.out.droppedTools.join(', '));
}

/** The upstream's usage, or (when it reported none) the prompt and answer counted here. */
async function billable(
  x: FormatExchange,
  usage: HubUsage | null,
  produced: () => { text: string; calls: number },
  cut = false,
): Promise<Usage> {
  if (usage && usage.input + usage.output > 0) {
    const billed = usageFromHub(usage);
    if (cut) {
      const { text, calls } = produced();
      const sent = (await countText(x.call.model, text)) + 7 * calls;
      billed.completionTokens = Math.max(billed.completionTokens, sent);
    }
    return billed;
  }
  const request = x.out.converted ?? x.input.hub;
  const prompt = request ? await countPrompt(x.call.model, request as HubRequest) : 0;
  const { text, calls } = produced();
  return {
    promptTokens: prompt,
    completionTokens: (await countText(x.call.model, text)) + 7 * calls,
    cachedTokens: 0,
  };
}

function answerText(parts: Array<{ type: string; text?: string; name?: string; args?: string }>) {
  let text = '';
  let calls = 0;
  for (const p of parts) {
    if (p.type === 'tool_call') {
      calls++;
      text += (p.name ?? '') + (p.args ?? '');
    } else if (typeof p.text === 'string') text += p.text;
  }
  return { text, calls };
}

/** The event that ends a same-format stream after a failure mid-stream, in the client's protocol. */
function streamErrorFrame(format: WireFormat, err: HubError, requestId: string): string {
  const { body } = codecFor(format).encodeError(err, requestId);
  if (format === 'anthropic') return sseEvent('error', body);
  if (format === 'responses') {
    const e = (body as { error?: Record<string, unknown> }).error ?? {};
    return sseEvent('error', {
      type: 'error',
      code: e.code ?? null,
      message: e.message,
      param: e.param ?? null,
    });
  }
  return sseData(body);
}
