import { embeddingList, openaiEmbedBody, openaiEmbedTexts, openaiVectors } from '../embeddings.ts';
import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError, encodeStreamError, errorInAnswer } from './errors.ts';
import { openaiModels } from './models.ts';
import { decodeRequest, encodeRequest } from './request.ts';
import { decodeResponse, encodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';
import { streamEncoder } from './stream-encoder.ts';

/**
 * OpenAI Chat Completions, as a client's format (Cursor, Cline, OpenWebUI, the SDKs) and as the format of
 * every OpenAI-compatible upstream (OpenAI, Azure, DeepSeek, xAI, Mistral and the other chat channel types).
 */
export const chatCodec: WireCodec = {
  format: 'openai',
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder,
  streamEncoder,
  decodeError,
  encodeError,
  encodeStreamError,
  openaiErrors: true,
  inspectOnly: true,
  streamUsageOption: true,
  chatChunks: true,
  errorInAnswer,
  embeddings: {
    texts: openaiEmbedTexts,
    body: openaiEmbedBody,
    vectors: openaiVectors,
    promptTokens: (json) =>
      Number((json as { usage?: { prompt_tokens?: unknown } })?.usage?.prompt_tokens) || 0,
    // The official SDKs ask for base64 (float32 little-endian bytes) by default.
    answer: (vectors, to) =>
      embeddingList(vectors, to.model, to.promptTokens, to.request?.encoding_format === 'base64'),
  },
  models: openaiModels,
};
