import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError } from './errors.ts';
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
};
