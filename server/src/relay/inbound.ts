import { textSize } from './billing/prompt-size.ts';
import type { Endpoint } from './endpoints.ts';
import { badRequest } from './errors.ts';
import type { RelayRequest } from './exchange.ts';
import { codecFor } from './formats/codecs.ts';
import { geminiEmbedTexts } from './formats/embeddings.ts';
import type { HubRequest, WireFormat } from './formats/hub.ts';
import { countPrompt, promptSize } from './formats/hub-count.ts';
import { inspectJson } from './formats/openai/request.ts';
import type { RelayInput } from './input.ts';

/**
 * A JSON request as the relay's input. OpenAI's endpoints are inspected as they always were (the fast path
 * decodes nothing more); the other formats are decoded into the hub here, which validates them in their
 * own protocol's terms before anything is held or sent.
 */
export function inputOf(ep: Endpoint, body: unknown, req: RelayRequest): RelayInput {
  if (ep.format === 'openai')
    return {
      mode: ep.mode,
      format: 'openai',
      info: inspectJson(ep.mode, body),
      json: body as Record<string, unknown>,
    };
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('request body must be a JSON object', 'invalid_request');
  if (ep.format === 'gemini' && ep.mode === 'embeddings')
    return geminiEmbedInput(ep, body as Record<string, unknown>);
  let json = body as Record<string, unknown>;
  if (ep.mode === 'count_tokens') json = countingBody(ep.format, json);
  const stream = ep.stream ?? json.stream === true;
  const hub = codecFor(ep.format).decodeRequest(json, {
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
    jsonArray: ep.format === 'gemini' && hub.stream && query?.alt !== 'sse',
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
  if (format === 'gemini') return { totalTokens: n };
  if (format === 'responses') return { object: 'response.input_tokens', input_tokens: n };
  return { input_tokens: n };
}

/**
 * A count-tokens body as the generation request it counts: Anthropic's has no max_tokens (its generation
 * request requires one), Gemini's may wrap the request in `generateContentRequest`.
 */
function countingBody(format: WireFormat, json: Record<string, unknown>): Record<string, unknown> {
  if (format === 'anthropic' && json.max_tokens === undefined) return { ...json, max_tokens: 1 };
  const wrapped = json.generateContentRequest;
  if (format === 'gemini' && wrapped && typeof wrapped === 'object' && !Array.isArray(wrapped))
    return wrapped as Record<string, unknown>;
  return json;
}

/** Gemini's embedContent / batchEmbedContents as the relay's embeddings input. */
function geminiEmbedInput(ep: Endpoint, json: Record<string, unknown>): RelayInput {
  const batch = ep.action === 'batchEmbedContents';
  const texts = geminiEmbedTexts(json, batch);
  const text = texts.join('\n');
  return {
    mode: 'embeddings',
    format: 'gemini',
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
