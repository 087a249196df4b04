import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream.ts';

/** Tencent Hunyuan's ChatCompletions API (Tencent Cloud API 3.0), spoken only upstream. */
export const hunyuanCodec: UpstreamCodec = {
  format: 'hunyuan',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
