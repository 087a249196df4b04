import type { KeySources } from '../admit/auth.ts';
import type { Mode } from '../admit/inspect-request.ts';
import type { WireFormat } from '../formats/hub.ts';

/**
 * One relay endpoint: the client's wire format, the operation, where the key may come from, and (Gemini) the
 * model and stream flag the URL carries. The fast lane and the Fastify routes both resolve paths here, so a
 * path is served the same way whichever of them takes the request.
 */
export interface Endpoint {
  format: WireFormat;
  mode: Mode;
  keys: KeySources;
  /** Gemini: the model named in the path. */
  model?: string;
  /** Gemini: streamGenerateContent (the stream flag is in the path, not the body). */
  stream?: boolean;
  /** Gemini: the action the path names (`generateContent`, `batchEmbedContents` ...). */
  action?: string;
}

const OPENAI: KeySources = {};
const ANTHROPIC: KeySources = { xApiKey: true };
const GOOGLE: KeySources = { google: true };

/** Exact POST paths with a JSON body. */
export const EXACT_ENDPOINTS: Record<string, Endpoint> = {
  '/v1/chat/completions': { format: 'openai', mode: 'chat', keys: OPENAI },
  '/v1/completions': { format: 'openai', mode: 'completions', keys: OPENAI },
  '/v1/embeddings': { format: 'openai', mode: 'embeddings', keys: OPENAI },
  '/v1/moderations': { format: 'openai', mode: 'moderations', keys: OPENAI },
  '/v1/images/generations': { format: 'openai', mode: 'images', keys: OPENAI },
  '/v1/audio/speech': { format: 'openai', mode: 'speech', keys: OPENAI },
  '/v1/rerank': { format: 'openai', mode: 'rerank', keys: OPENAI },
  '/v1/messages': { format: 'anthropic', mode: 'chat', keys: ANTHROPIC },
  '/v1/messages/count_tokens': { format: 'anthropic', mode: 'count_tokens', keys: ANTHROPIC },
  '/v1/responses': { format: 'responses', mode: 'chat', keys: OPENAI },
  '/v1/responses/input_tokens': { format: 'responses', mode: 'count_tokens', keys: OPENAI },
};

/** Gemini's `models/{model}:{action}` actions. */
const GEMINI_ACTIONS: Record<string, Pick<Endpoint, 'mode' | 'stream'>> = {
  generateContent: { mode: 'chat', stream: false },
  streamGenerateContent: { mode: 'chat', stream: true },
  countTokens: { mode: 'count_tokens' },
  embedContent: { mode: 'embeddings' },
  batchEmbedContents: { mode: 'embeddings' },
};

/** The prefixes under which Google's clients call `models/{model}:{action}`. */
export const GEMINI_PREFIXES = ['/v1beta/models/', '/v1/models/'];

/** `/v1beta/models/gemini-2.5-flash:streamGenerateContent` -> the Gemini endpoint; null for anything else. */
export function geminiEndpoint(path: string): Endpoint | null {
  const prefix = GEMINI_PREFIXES.find((p) => path.startsWith(p));
  if (!prefix) return null;
  const tail = path.slice(prefix.length);
  const colon = tail.lastIndexOf(':');
  if (colon <= 0) return null;
  const action = GEMINI_ACTIONS[tail.slice(colon + 1)];
  if (!action) return null;
  let model: string;
  try {
    model = decodeURIComponent(tail.slice(0, colon));
  } catch {
    return null;
  }
  if (!model || model.includes('/')) return null;
  return { format: 'gemini', keys: GOOGLE, ...action, model, action: tail.slice(colon + 1) };
}

/** The endpoint a POST path (query string removed) names, or null. */
export function endpointOf(path: string): Endpoint | null {
  return EXACT_ENDPOINTS[path] ?? geminiEndpoint(path);
}
