import { badRequest } from '../../relay-error.ts';
import { geminiBatchBody, geminiEmbedAnswer, geminiEmbedTexts, geminiVectors } from '../embeddings.ts';
import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError, encodeStreamError } from './errors.ts';
import { geminiModels } from './models.ts';
import { decodeRequest, encodeRequest } from './request.ts';
import { decodeResponse, encodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';
import { streamEncoder } from './stream-encoder.ts';

/**
 * Google Gemini generateContent / streamGenerateContent, as a client's format (Gemini CLI, @google/genai)
 * and as the format of Gemini channels. The model is in the URL, not the body (ctx.model), and so is the
 * choice to stream (ctx.stream).
 */
export const geminiCodec: WireCodec = {
  format: 'gemini',
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder,
  streamEncoder,
  decodeError,
  encodeError,
  encodeStreamError,
  modelInUrl: true,
  // countTokens may wrap the request it counts in `generateContentRequest`.
  countingBody(body) {
    const wrapped = body.generateContentRequest;
    return wrapped && typeof wrapped === 'object' && !Array.isArray(wrapped)
      ? (wrapped as Record<string, unknown>)
      : body;
  },
  countAnswer: (n) => ({ totalTokens: n }),
  streamsJsonArray: (query) => query?.alt !== 'sse',
  refuseConversion(body, model) {
    if (typeof body.cachedContent === 'string')
      throw badRequest(
        `cachedContent cannot be used with model ${model}: its channel is not Gemini's`,
        'invalid_value',
        'cachedContent',
      );
  },
  embeddings: {
    texts: geminiEmbedTexts,
    body: geminiBatchBody,
    action: (single) => (single ? 'embedContent' : 'batchEmbedContents'),
    vectors: geminiVectors,
    answer: (vectors, to) => geminiEmbedAnswer(vectors, to.batch),
  },
  models: geminiModels,
};
