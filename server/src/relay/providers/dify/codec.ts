import type { UpstreamCodec } from '../../formats/hub.ts';
import { decodeError } from './errors.ts';
import { encodeRequest } from './request.ts';
import { decodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';

/** Dify's chat-messages API (an app's chat endpoint), spoken only upstream. */
export const difyCodec: UpstreamCodec = {
  format: 'dify',
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
};
