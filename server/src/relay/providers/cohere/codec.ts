import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';

/** Cohere's Chat v2 API, spoken only upstream. */
export const cohereCodec: UpstreamCodec = {
  format: 'cohere',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
