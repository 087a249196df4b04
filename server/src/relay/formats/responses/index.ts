import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError } from './errors.ts';
import { decodeRequest, encodeRequest } from './request.ts';
import { decodeResponse, encodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';
import { streamEncoder } from './stream-encoder.ts';

/**
 * OpenAI Responses, as a client's format (POST /v1/responses: Codex CLI, the Agents SDK) and as the format
 * of OpenAI and Azure channels that serve /v1/responses.
 */
export const responsesCodec: WireCodec = {
  format: 'responses',
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder,
  streamEncoder,
  decodeError,
  encodeError,
};
