import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream.ts';

/** DashScope's native generation API (Alibaba Qwen), spoken only upstream. */
export const aliCodec: UpstreamCodec = {
  format: 'ali',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
