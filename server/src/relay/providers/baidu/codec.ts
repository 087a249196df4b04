import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream.ts';

/** Baidu Wenxin Workshop's chat format (ERNIE models), spoken only upstream. */
export const baiduCodec: UpstreamCodec = {
  format: 'baidu',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
