import { aliCodec } from '../providers/ali/codec.ts';
import { baiduCodec } from '../providers/baidu/codec.ts';
import { cohereCodec } from '../providers/cohere/codec.ts';
import { cozeCodec } from '../providers/coze/codec.ts';
import { difyCodec } from '../providers/dify/codec.ts';
import { hunyuanCodec } from '../providers/hunyuan/codec.ts';
import { xunfeiCodec } from '../providers/xunfei/codec.ts';
import { zhipuCodec } from '../providers/zhipu/codec.ts';
import { anthropicCodec } from './anthropic/index.ts';
import { chatCodec } from './chat/index.ts';
import { geminiCodec } from './gemini/index.ts';
import type { UpstreamCodec, UpstreamFormat, WireCodec, WireFormat } from './hub.ts';
import { responsesCodec } from './responses/index.ts';

const CODECS: Record<WireFormat, WireCodec> = {
  openai: chatCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  responses: responsesCodec,
};

/** Providers' own formats, spoken only upstream (each codec lives in its provider's folder). */
const UPSTREAM_ONLY: Partial<Record<UpstreamFormat, UpstreamCodec>> = {
  ali: aliCodec,
  baidu: baiduCodec,
  zhipu: zhipuCodec,
  hunyuan: hunyuanCodec,
  xunfei: xunfeiCodec,
  cohere: cohereCodec,
  dify: difyCodec,
  coze: cozeCodec,
};

/** The codec of a client's wire format. */
export const codecFor = (format: WireFormat): WireCodec => CODECS[format];

/** The codec of the format an upstream speaks, when the gateway has one (a provider may map its own shape). */
export const upstreamCodecOf = (format: UpstreamFormat): UpstreamCodec | undefined =>
  (CODECS as Partial<Record<UpstreamFormat, UpstreamCodec>>)[format] ?? UPSTREAM_ONLY[format];

/** The codec of the format an upstream speaks. */
export function upstreamCodecFor(format: UpstreamFormat): UpstreamCodec {
  const codec = upstreamCodecOf(format);
  if (!codec) throw new Error(`no codec for the upstream format ${format}`);
  return codec;
}
