import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream.ts';

/** Zhipu's v3 model-api format (ChatGLM), spoken only upstream. */
export const zhipuCodec: UpstreamCodec = {
  format: 'zhipu',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
