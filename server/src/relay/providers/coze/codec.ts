import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';

/** Coze's Chat v3 API (a bot's chat), spoken only upstream. */
export const cozeCodec: UpstreamCodec = {
  format: 'coze',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
