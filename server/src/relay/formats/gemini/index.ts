import type { WireCodec } from '../hub.ts';
import { decodeError, encodeError } from './errors.ts';
import { decodeRequest, encodeRequest } from './request.ts';
import { decodeResponse, encodeResponse } from './response.ts';
import { streamDecoder } from './stream-decoder.ts';
import { streamEncoder } from './stream-encoder.ts';

/**
 * Google Gemini generateContent / streamGenerateContent, as a client's format (Gemini CLI, @google/genai)
 * and as the format of Gemini channels. The model is in the URL, not the body (ctx.model), and so is the
 * choice to stream (ctx.stream).
 */
export const geminiCodec: WireCodec = {
  format: 'gemini',
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  streamDecoder,
  streamEncoder,
  decodeError,
  encodeError,
};
