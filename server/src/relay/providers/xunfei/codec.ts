import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream.ts';

/** iFlytek Spark's WebSocket chat format, spoken only upstream (the adapter carries it over the socket). */
export const xunfeiCodec: UpstreamCodec = {
  format: 'xunfei',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
