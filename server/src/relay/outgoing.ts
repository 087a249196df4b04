import type { IncomingHttpHeaders } from 'node:http';
import { FormData } from 'undici';
import type { OptionStore } from '../modules/options/store.ts';
import type { ChannelEntry } from './cache/channels.ts';
import { dropEndUser, type EndUserPolicy } from './end-user.ts';
import { badRequest } from './errors.ts';
import { codecFor, upstreamCodecFor } from './formats/codecs.ts';
import { geminiBatchBody, openaiEmbedBody, openaiEmbedTexts } from './formats/embeddings.ts';
import { envelopeKeyOf } from './formats/envelope/keys.ts';
import { openEnvelopes } from './formats/envelope/request.ts';
import { ENVELOPE_PREFIX } from './formats/envelope/seal.ts';
import { hostedToolsFor } from './formats/hosted-tools.ts';
import type { CodecContext, HubRequest } from './formats/hub.ts';
import { MODE_PATHS } from './formats/openai/request.ts';
import type { RelayInput } from './input.ts';
import { rawJsonOf } from './json-body.ts';
import { claudeDefaultMaxTokens } from './providers/anthropic/index.ts';
import type { ProviderAdapter, UpstreamCall } from './providers/types.ts';

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
  return {
    mode: input.mode,
    format,
    path: format === 'responses' ? '/v1/responses' : MODE_PATHS[input.mode],
    model,
    stream: input.info.stream,
    query: q >= 0 ? url.slice(q + 1) : '',
    clientHeaders,
    options,
    ...(format === 'gemini' && input.mode === 'embeddings'
      ? {
          geminiAction:
            input.format === 'gemini' && !input.embedBatch ? 'embedContent' : 'batchEmbedContents',
        }
      : {}),
  };
}

/** The body of one upstream call, and whether the answer must be converted back to the client's format. */
export interface Outgoing {
  body: string | FormData;
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
      call.format === 'gemini'
        ? geminiBatchBody(call.model, texts)
        : call.format === 'openai'
          ? openaiEmbedBody(call.model, texts)
          : adapter.embeddings
            ? adapter.embeddings.body(call.model, texts, call)
            : openaiEmbedBody(call.model, texts);
    const out = finish(json, call, adapter, ch);
    out.embedConverted = true;
    return out;
  }
  const raw = rawJsonOf(input.json);
  if (passThrough) return { body: raw ?? JSON.stringify(input.json), json: input.json };
  const json: Record<string, unknown> = { ...input.json };
  let edited = false;
  // Gemini names the model in the URL, every other format in the body.
  if (call.format !== 'gemini' && json.model !== call.model) {
    json.model = call.model;
    edited = true;
  }
  if (call.format === 'openai') {
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
  // A body the gateway did not change goes upstream byte for byte as the client sent it.
  return { body: edited || raw === undefined ? JSON.stringify(json) : raw, json };
}

function converted(
  input: RelayInput,
  call: UpstreamCall,
  adapter: ProviderAdapter,
  ch: ChannelEntry,
  requestId: string,
  endUser: EndUserPolicy,
): Outgoing {
  const other = call.format !== input.format;
  if (other && input.format === 'responses' && input.json?.previous_response_id)
    throw badRequest(
      `previous_response_id cannot be resolved for model ${input.info.model}: its channel does not store responses; send the whole conversation in input`,
      'invalid_value',
      'previous_response_id',
    );
  if (other && input.format === 'gemini' && typeof input.json?.cachedContent === 'string')
    throw badRequest(
      `cachedContent cannot be used with model ${input.info.model}: its channel is not Gemini's`,
      'invalid_value',
      'cachedContent',
    );
  const ctx: CodecContext = { model: call.model, stream: call.stream, requestId };
  // OpenAI chat clients are decoded only when a channel of another format serves them; kept for retries.
  input.hub ??= codecFor(input.format).decodeRequest(input.json ?? {}, {
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
  // The client's end-user id is not passed to another vendor as it is (end-user.ts).
  const hub: HubRequest = openEnvelopes(
    {
      ...input.hub,
      model: call.model,
      stream: call.stream,
      serverTools: hosted.serverTools,
      user: endUser(input.hub.user),
    },
    input.format,
    call.format,
    envelopeKeyOf(call.options),
  );
  if (call.format === 'anthropic') ctx.defaultMaxTokens = claudeDefaultMaxTokens(call);
  const json = upstreamCodecFor(call.format).encodeRequest(hub, ctx);
  if (call.format === 'openai' && !adapter.streamUsage(ch)) delete json.stream_options;
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
  if (input.format === 'openai' || !input.hub) return false;
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
