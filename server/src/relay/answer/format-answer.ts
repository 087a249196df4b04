import type { RelayMeter } from '../../infra/metrics/relay-metrics.ts';
import { isTraced } from '../../infra/tracing/relay-trace.ts';
import type { Produced, RelayInput } from '../admit/relay-input.ts';
import type { Usage } from '../billing/quota.ts';
import { countChatPrompt, countText } from '../billing/tokenizer.ts';
import type { CallAbort } from '../call/call-abort.ts';
import type { Outgoing } from '../call/upstream-request.ts';
import { codecFor, upstreamCodecFor } from '../formats/codecs.ts';
import { sealAnswer } from '../formats/envelope/answer.ts';
import { envelopeKeyOf } from '../formats/envelope/keys.ts';
import { sealingEncoder } from '../formats/envelope/stream.ts';
import { DROPPED_TOOLS_HEADER } from '../formats/hosted-tools.ts';
import type { CodecContext, HubRequest, HubUsage } from '../formats/hub.ts';
import { countPrompt, usageFromHub } from '../formats/hub-count.ts';
import { answerBlocked, guardAnswerParts, guardChatAnswer } from '../guardrails/whole-answer.ts';
import type { RelayReply, RelayRequest } from '../http/exchange.ts';
import type { ProviderAdapter, UpstreamCall, UpstreamResponse } from '../providers/types.ts';
import { RelayError, upstreamError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import type { Answered } from './operations/answer.ts';
import { chatClosing, chatEventRelay, rewritingEncoder } from './stream/chat-relay.ts';
import { chunkRewrite } from './stream/chunk-rewrite.ts';
import { type FormatOutcome, relayFormatStream } from './stream/format-stream.ts';

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
  ch: ChannelEntry;
  meter?: RelayMeter;
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
 * A non-stream chat answer in any pair of formats. Same format: the upstream's body goes to the client as it
 * came, and its usage is read through the format's codec. Another format: decoded into the hub and encoded
 * in the client's format.
 */
export async function answerInFormats(x: FormatExchange, text: string): Promise<Answered> {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformedAnswer();
  }
  const upstream = upstreamCodecFor(x.call.format);
  // An error inside a 200 answer relayed as it came: a failure another channel may do better at (a converted
  // answer's error is read by its codec).
  if (!x.out.converted && upstream.errorInAnswer?.(json))
    throw upstreamError(500, text, [x.ch.key, x.ch.baseUrl]);
  noteDroppedTools(x);
  const answer = upstream.decodeResponse(json, upstreamCtx(x));
  const billed = billable(x, answer.usage, () => answerText(answer.parts));
  const usage = billed instanceof Promise ? await billed : billed;
  const produced = { usage, firstAt: 0, finish: answer.stop };
  // Guardrails, answer side: a chat answer relayed as it came is masked in its JSON; any other is masked in the
  // hub and re-encoded.
  const guard = x.input.answerGuard?.();
  if (guard && !x.out.converted && upstream.chatChunks)
    return { answer: { body: guardChatAnswer(guard, json), contentType: 'application/json' }, produced };
  if (guard) guardAnswerParts(guard, answer.parts);
  if (!x.out.converted && !guard)
    return { answer: { body: text, contentType: 'application/json' }, produced };
  const parts = sealAnswer(answer.parts, x.call.format, x.input.format, envelopeKeyOf(x.call.options));
  return {
    answer: { body: codecFor(x.input.format).encodeResponse({ ...answer, parts }, clientCtx(x)) },
    produced,
  };
}

/** A streamed answer in any pair of formats: converted event by event, or forwarded as it came. */
export async function streamInFormats(x: FormatExchange): Promise<Produced> {
  const { reply, state } = x;
  noteDroppedTools(x);
  const pingOn = state.ctx.options.bool('general_setting.ping_interval_enabled');
  const array = x.input.jsonArray === true;
  // OpenAI clients' answers are chat chunks (completions' too): the channel's chunk rewrites apply to them.
  const client = codecFor(x.input.format);
  const rewrite = client.chatChunks ? chunkRewrite(x.ch) : undefined;
  const upstream = upstreamCodecFor(x.call.format);
  const sameOpenai = !x.out.converted && upstream.chatChunks === true;
  // Guardrails, answer side: a relayed OpenAI stream passes its chunks through the guard; any other stream is
  // checked on its hub events, so a same-format one is re-encoded while a policy reads answers.
  const guard = x.input.answerGuard?.();
  const reencoded = !x.out.converted && !sameOpenai && guard !== undefined;
  let counted: Usage | undefined;
  const closing = async (o: FormatOutcome) => {
    if (!x.input.info.wantsUsage || (o.usage && o.usage.input + o.usage.output > 0)) return chatClosing(null);
    counted = await billable(x, null, () => ({ text: o.text, calls: o.toolCalls }));
    return chatClosing(usageChunk(x, o, counted));
  };
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
      decoder: upstream.streamDecoder(upstreamCtx(x)),
      newDecoder: () => upstream.streamDecoder(upstreamCtx(x)),
      encoder: x.out.converted
        ? rewritingEncoder(
            sealingEncoder(
              client.streamEncoder(clientCtx(x)),
              x.call.format,
              x.input.format,
              envelopeKeyOf(x.call.options),
            ),
            rewrite,
          )
        : reencoded
          ? client.streamEncoder(clientCtx(x))
          : undefined,
      arrayFrames: array && !x.out.converted && !reencoded,
      relayEvent: sameOpenai
        ? chatEventRelay(!x.input.info.wantsUsage, guard ? chunkRewrite(x.ch, guard) : rewrite)
        : undefined,
      guard,
      readFinish: isTraced(x.req),
      closing: sameOpenai ? closing : undefined,
      errorFrame: (err) => client.encodeStreamError(err, x.req.id),
    },
    x.startedAt,
  );
  if (outcome.clientGone && !reply.raw.headersSent) reply.hijack();
  // A stream cut short may carry only the usage of its start (Anthropic's message_start): the output is at
  // least what reached the client.
  const cut = outcome.clientGone || outcome.error !== null;
  const billed =
    counted ?? billable(x, outcome.usage, () => ({ text: outcome.text, calls: outcome.toolCalls }), cut);
  const usage = billed instanceof Promise ? await billed : billed;
  if (guard?.blocked) return { usage, firstAt: outcome.firstAt, ...answerBlocked(guard) };
  const note = outcome.clientGone
    ? 'client disconnected mid-stream'
    : outcome.error
      ? `upstream failed mid-stream: ${outcome.error.message}`
      : undefined;
  return { usage, firstAt: outcome.firstAt, note, finish: outcome.stop };
}

/** The hosted tools the request went without (the operator allows dropping them), said in a header. */
function noteDroppedTools(x: FormatExchange): void {
  if (x.out.droppedTools?.length) x.reply.header(DROPPED_TOOLS_HEADER, x.out.droppedTools.join(', '));
}

/**
 * The upstream's usage, or (when it reported none) the prompt and answer counted here. At once when the upstream
 * reported it and the answer was not cut (most answers): no promise then.
 */
function billable(
  x: FormatExchange,
  usage: HubUsage | null,
  produced: () => { text: string; calls: number },
  cut = false,
): Usage | Promise<Usage> {
  if (usage && usage.input + usage.output > 0 && !cut) return usageFromHub(usage);
  return countedHere(x, usage, produced());
}

async function countedHere(
  x: FormatExchange,
  usage: HubUsage | null,
  { text, calls }: { text: string; calls: number },
): Promise<Usage> {
  const sent = (await countText(x.call.model, text)) + 7 * calls;
  if (usage && usage.input + usage.output > 0) {
    // Cut short: billed at least what reached the client.
    const billed = usageFromHub(usage);
    billed.completionTokens = Math.max(billed.completionTokens, sent);
    return billed;
  }
  return { promptTokens: await countedPrompt(x), completionTokens: sent, cachedTokens: 0 };
}

/** The prompt counted here: the hub request, else an OpenAI chat body as sent, else the input's text. */
function countedPrompt(x: FormatExchange): Promise<number> {
  const request = x.out.converted ?? x.input.hub;
  if (request) return countPrompt(x.call.model, request as HubRequest);
  if (x.input.mode === 'chat') return countChatPrompt(x.call.model, x.out.json ?? {});
  return countText(x.call.model, x.input.info.inputText);
}

/** The usage chunk a same-format OpenAI stream owes a client that asked for it when the upstream sent none. */
function usageChunk(x: FormatExchange, o: FormatOutcome, usage: Usage): Record<string, unknown> {
  return {
    id: o.start?.id ?? `chatcmpl-${x.req.id}`,
    object: 'chat.completion.chunk',
    created: o.start?.created ?? Math.floor(Date.now() / 1000),
    model: o.start?.model ?? x.call.model,
    choices: [],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    },
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
