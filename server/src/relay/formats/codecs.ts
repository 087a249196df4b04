import { anthropicCodec } from './anthropic/index.ts';
import { chatCodec } from './chat/index.ts';
import { geminiCodec } from './gemini/index.ts';
import type { WireCodec, WireFormat } from './hub.ts';
import { responsesCodec } from './responses/index.ts';

const CODECS: Record<WireFormat, WireCodec> = {
  openai: chatCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  responses: responsesCodec,
};

/** The codec of a wire format. */
export const codecFor = (format: WireFormat): WireCodec => CODECS[format];
