import { textSize } from '../billing/prompt-size.ts';
import type { EmbeddingsWire } from '../formats/codec.ts';
import { codecFor } from '../formats/codecs.ts';
import type { HubRequest, WireFormat } from '../formats/hub.ts';
import { countPrompt, promptSize } from '../formats/hub-count.ts';
import type { Endpoint } from '../http/endpoints.ts';
import type { RelayRequest } from '../http/exchange.ts';
import { badRequest } from '../relay-error.ts';
import { inspectJson } from './inspect-request.ts';
import type { RelayInput } from './relay-input.ts';

/**
 * A JSON request as the relay's input. OpenAI's endpoints are inspected as they always were (the fast path
 * decodes nothing more); the other formats are decoded into the hub here, which validates them in their
 * own protocol's terms before anything is held or sent.
 */
export function inputOf(ep: Endpoint, body: unknown, req: RelayRequest): RelayInput {
  const codec = codecFor(ep.format);
  if (codec.inspectOnly)
    return {
      mode: ep.mode,
      format: ep.format,
      info: inspectJson(ep.mode, body),
      json: body as Record<string, unknown>,
    };
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('request body must be a JSON object', 'invalid_request');
  if (ep.mode === 'embeddings' && codec.embeddings)
    return embeddingsInput(ep, body as Record<string, unknown>, codec.embeddings);
  let json = body as Record<string, unknown>;
  if (ep.mode === 'count_tokens' && codec.countingBody) json = codec.countingBody(json);
  const stream = ep.stream ?? json.stream === true;
  const hub = codec.decodeRequest(json, {
    model: ep.model ?? (typeof json.model === 'string' ? json.model : ''),
    stream,
    requestId: req.id,
  });
  if (ep.model) hub.model = ep.model;
  if (ep.stream !== undefined) hub.stream = ep.stream;
  const query = req.query as Record<string, unknown> | undefined;
  const size = promptSize(hub);
  return {
    mode: ep.mode,
    format: ep.format,
    hub,
    json,
    jsonArray: hub.stream && codec.streamsJsonArray?.(query) === true,
    info: {
      model: hub.model,
      stream: hub.stream,
      wantsUsage: false,
      maxTokens: hub.maxTokens ?? 0,
      promptEstimate: size.estimate,
      promptBound: size.bound,
      inputText: '',
    },
  };
}

/** The answer of a count-tokens endpoint (counted here with the local tokenizer; never billed). */
export async function countTokensAnswer(format: WireFormat, hub: HubRequest): Promise<unknown> {
  const n = await countPrompt(hub.model, hub);
  return codecFor(format).countAnswer?.(n) ?? { input_tokens: n };
}

/** An embeddings request of a decoded format (Gemini's embedContent / batchEmbedContents) as the relay's input. */
function embeddingsInput(ep: Endpoint, json: Record<string, unknown>, wire: EmbeddingsWire): RelayInput {
  const batch = ep.action === 'batchEmbedContents';
  const texts = wire.texts(json, batch);
  const text = texts.join('\n');
  return {
    mode: 'embeddings',
    format: ep.format,
    json,
    embedBatch: batch,
    embedTexts: texts,
    info: {
      model: ep.model ?? '',
      stream: false,
      wantsUsage: false,
      maxTokens: 0,
      promptEstimate: textSize(text).estimate,
      promptBound: textSize(text).bound,
      inputText: text,
    },
  };
}
