import { badRequest } from '../../relay-error.ts';
import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError, encodeStreamError } from './errors.ts';
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
  encodeStreamError,
  openaiErrors: true,
  chatPath: '/v1/responses',
  countAnswer: (n) => ({ object: 'response.input_tokens', input_tokens: n }),
  refuseConversion(body, model) {
    if (body.previous_response_id)
      throw badRequest(
        `previous_response_id cannot be resolved for model ${model}: its channel does not store responses; send the whole conversation in input`,
        'invalid_value',
        'previous_response_id',
      );
  },
};
