import { claudeDefaultMaxTokens } from '../../providers/anthropic/index.ts';
import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError, encodeStreamError } from './errors.ts';
import { anthropicModels } from './models.ts';
import { decodeRequest, encodeRequest } from './request.ts';
import { decodeResponse, encodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';
import { streamEncoder } from './stream-encoder.ts';

/**
 * Anthropic Messages, as a client's format (POST /v1/messages: Claude Code, the Anthropic SDKs) and as the
 * format of Anthropic channels (type 14) and Anthropic-compatible upstreams.
 */
export const anthropicCodec: WireCodec = {
  format: 'anthropic',
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder,
  streamEncoder,
  decodeError,
  encodeError,
  encodeStreamError,
  defaultMaxTokens: claudeDefaultMaxTokens,
  // A count_tokens body has no max_tokens, which the generation request it counts requires.
  countingBody: (body) => (body.max_tokens === undefined ? { ...body, max_tokens: 1 } : body),
  conversationKey(body) {
    const meta = body.metadata as { user_id?: unknown } | undefined;
    return typeof meta?.user_id === 'string' && meta.user_id ? meta.user_id : undefined;
  },
  models: anthropicModels,
};
