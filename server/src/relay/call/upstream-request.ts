import type { IncomingHttpHeaders } from 'node:http';
import { FormData } from 'undici';
import type { OptionStore } from '../../modules/options/store.ts';
import { MODE_PATHS } from '../admit/inspect-request.ts';
import type { RelayInput } from '../admit/relay-input.ts';
import { codecFor, upstreamCodecFor, upstreamCodecOf } from '../formats/codecs.ts';
import { openaiEmbedBody, openaiEmbedTexts } from '../formats/embeddings.ts';
import { envelopeKeyOf } from '../formats/envelope/keys.ts';
import { openEnvelopes } from '../formats/envelope/request.ts';
import { ENVELOPE_PREFIX } from '../formats/envelope/seal.ts';
import { hostedToolsFor } from '../formats/hosted-tools.ts';
import type { CodecContext, HubRequest } from '../formats/hub.ts';
import { rawJsonOf } from '../http/json-body.ts';
import type { ProviderAdapter, UpstreamCall } from '../providers/types.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import { withAddedFields } from './added-fields.ts';
import { dropEndUser, type EndUserPolicy } from './end-user-id.ts';

/** One call to one channel: the wire format its host speaks for this request, the path and mapped model. */
export function callFor(
  options: OptionStore,
  input: RelayInput,
  url: string,
  clientHeaders: IncomingHttpHeaders,
  ch: ChannelEntry,
  adapter: ProviderAdapter,
): UpstreamCall {
  const q = url.indexOf('?');
  const model = ch.modelMapping[input.info.model] || input.info.model;
  const format =
    input.mode === 'chat'
      ? adapter.formatFor(ch, input.format, model)
      : input.mode === 'embeddings'
        ? (adapter.embeddingFormat ?? 'openai')
        : 'openai';
  const codec = upstreamCodecOf(format);
  const embedAction = input.mode === 'embeddings' ? codec?.embeddings?.action : undefined;
  return {
    mode: input.mode,
    format,
    path: codec?.chatPath ?? MODE_PATHS[input.mode],
    model,
    stream: input.info.stream,
    query: q >= 0 ? url.slice(q + 1) : '',
    clientHeaders,
    options,
    // A client that asked for one text singly (Gemini's embedContent) is answered singly.
    ...(embedAction ? { geminiAction: embedAction(input.embedBatch === false) } : {}),
  };
}

/** The body of one upstream call, and whether the answer must be converted back to the client's format. */
export interface Outgoing {
  body: string | Buffer | FormData;
  /** The JSON sent (JSON bodies only), for counting a prompt the upstream reports no usage for. */
  json?: Record<string, unknown>;
  /** Set when the channel speaks another format than the client: the request as the upstream got it. */
  converted?: HubRequest;
  /** Hosted tools of the client's format left out on the operator's say (none unless that is allowed). */
  droppedTools?: string[];
  /** An embeddings request converted between OpenAI's and Gemini's formats. */
  embedConverted?: boolean;
}

/**
 * Builds the upstream body. Same format: the client's body with only the gateway's edits (model mapping,
 * OpenAI's usage request, the host's edits, the channel's parameter override), or unchanged in pass-through
 * mode. Another format: the client's request through the hub into the upstream's format.
 */
export function outgoingFor(
  input: RelayInput,
  call: UpstreamCall,
  adapter: ProviderAdapter,
  ch: ChannelEntry,
  requestId: string,
  passThrough: boolean,
  endUser: EndUserPolicy = dropEndUser,
): Outgoing {
  if (!input.json) {
    const form = new FormData();
    for (const [k, v] of input.form ?? []) form.append(k, k === 'model' ? call.model : v);
    return { body: form };
  }
  if (input.mode === 'chat' && (call.format !== input.format || strayEnvelope(input)))
    return converted(input, call, adapter, ch, requestId, endUser);
  if (input.mode === 'embeddings' && call.format !== input.format) {
    const texts = input.embedTexts ?? openaiEmbedTexts(input.json);
    const json =
      upstreamCodecOf(call.format)?.embeddings?.body(call.model, texts) ??
      adapter.embeddings?.body(call.model, texts, call) ??
      openaiEmbedBody(call.model, texts);
    const out = finish(json, call, adapter, ch);
    out.embedConverted = true;
    return out;
  }
  const raw = rawJsonOf(input.json);
  if (passThrough) return { body: raw ?? JSON.stringify(input.json), json: input.json };
  const json: Record<string, unknown> = { ...input.json };
  const codec = upstreamCodecOf(call.format);
  let edited = false;
  if (!codec?.modelInUrl && json.model !== call.model) {
    json.model = call.model;
    edited = true;
  }
  if (codec?.streamUsageOption) {
    const so = input.json.stream_options as Record<string, unknown> | undefined;
    if (call.stream && adapter.streamUsage(ch)) {
      if (so?.include_usage !== true) {
        json.stream_options = { ...(so && typeof so === 'object' ? so : {}), include_usage: true };
        edited = true;
      }
    } else if (so !== undefined) {
      delete json.stream_options;
      edited = true;
    }
  }
  if (adapter.prepareBody?.(json, ch, call)) edited = true;
  if (ch.paramOverride) {
    Object.assign(json, ch.paramOverride);
    edited = true;
  }
  // A body the gateway did not change goes upstream byte for byte as the client sent it; one it only added
  // fields to, as the client's bytes with those fields after them.
  if (raw === undefined) return { body: JSON.stringify(json), json };
  if (!edited) return { body: raw, json };
  return { body: withAddedFields(raw, input.json, json) ?? JSON.stringify(json), json };
}

function converted(
  input: RelayInput,
  call: UpstreamCall,
  adapter: ProviderAdapter,
  ch: ChannelEntry,
  requestId: string,
  endUser: EndUserPolicy,
): Outgoing {
  const client = codecFor(input.format);
  if (call.format !== input.format) client.refuseConversion?.(input.json ?? {}, input.info.model);
  const ctx: CodecContext = { model: call.model, stream: call.stream, requestId };
  // OpenAI chat clients are decoded only when a channel of another format serves them; kept for retries.
  input.hub ??= client.decodeRequest(input.json ?? {}, {
    model: input.info.model,
    stream: call.stream,
    requestId,
  });
  const hosted = hostedToolsFor(
    input.hub.serverTools,
    call.format,
    input.format,
    call.options.bool('global.drop_unsupported_hosted_tools_enabled'),
  );
  // The client's end-user id is not passed to another vendor as it is (call/end-user-id.ts).
  // Object.assign, not an object spread: on Node 20 the spread with fields after it made objects the young
  // collections promoted, about 400 bytes a converted request (README, "What a converted request promotes").
  const hub: HubRequest = openEnvelopes(
    Object.assign({}, input.hub, {
      model: call.model,
      stream: call.stream,
      serverTools: hosted.serverTools,
      user: endUser(input.hub.user),
    }),
    input.format,
    call.format,
    envelopeKeyOf(call.options),
  );
  const upstream = upstreamCodecFor(call.format);
  if (upstream.defaultMaxTokens) ctx.defaultMaxTokens = upstream.defaultMaxTokens(call);
  const json = upstream.encodeRequest(hub, ctx);
  if (upstream.streamUsageOption && !adapter.streamUsage(ch)) delete json.stream_options;
  const out = finish(json, call, adapter, ch);
  out.converted = hub;
  if (hosted.dropped.length) out.droppedTools = hosted.dropped;
  return out;
}

/**
 * A body for a channel of the client's own format that carries one of the gateway's reasoning envelopes (a
 * conversation that was served by a channel of another format before): it goes through the hub, where the
 * envelope is dropped as the foreign signature it is for this channel, instead of being relayed as it came.
 * Envelopes are whole JSON strings, so the raw text is searched for one starting a string.
 */
function strayEnvelope(input: RelayInput): boolean {
  if (codecFor(input.format).inspectOnly || !input.hub) return false;
  return (rawJsonOf(input.json ?? {}) ?? JSON.stringify(input.json)).includes(`"${ENVELOPE_PREFIX}`);
}

function finish(
  json: Record<string, unknown>,
  call: UpstreamCall,
  adapter: ProviderAdapter,
  ch: ChannelEntry,
): Outgoing {
  adapter.prepareBody?.(json, ch, call);
  if (ch.paramOverride) Object.assign(json, ch.paramOverride);
  return { body: JSON.stringify(json), json };
}
