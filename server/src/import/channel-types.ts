import { channelTypeInfo } from '@modelgate/shared';
import type { Flavor } from './detect.ts';

/**
 * How a source channel type becomes one of ours. Ours are numbered as new-api numbers them; one-api numbers
 * them its own way from 26 on (relay/channeltype/define.go there). OpenAI-compatible resellers that have no
 * type of their own here become Custom channels with that reseller's address (one-api's ChannelBaseURLs);
 * a Custom channel whose address holds a version path is used as the full chat endpoint.
 */
export type TypeMapping = { type: number; baseUrl?: string } | { unsupported: string };

const CUSTOM = 8;
const custom = (baseUrl: string): TypeMapping => ({ type: CUSTOM, baseUrl });
const no = (name: string): TypeMapping => ({ unsupported: name });

/** The source types that are not ours one for one, shared by both projects (ids below 26 agree). */
const COMMON: Record<number, TypeMapping> = {
  0: no('Unknown'),
  6: custom('https://api.openaimax.com'),
  7: custom('https://api.ohmygpt.com'),
  9: custom('https://api.caipacity.com'),
  10: custom('https://api.aiproxy.io'),
  12: custom('https://api.api2gpt.com'),
  13: custom('https://api.aigc2d.com'),
};

const NEW_API: Record<number, TypeMapping> = {
  ...COMMON,
  27: custom('https://api.perplexity.ai/chat/completions'),
  50: no('Kling'),
  51: no('Jimeng'),
  52: no('Vidu'),
  53: custom('https://llm.submodel.ai'),
  54: no('Doubao video'),
  55: no('Sora'),
  56: no('Replicate'),
  57: no('Codex'),
};

const ONE_API: Record<number, TypeMapping> = {
  ...COMMON,
  2: custom('https://oa.api2d.net'),
  4: custom('https://api.closeai-proxy.xyz'),
  5: custom('https://api.openai-sb.com'),
  26: custom('https://api.baichuan-ai.com'),
  27: { type: 35 }, // MiniMax
  28: { type: 42 }, // Mistral
  29: custom('https://api.groq.com/openai'),
  30: { type: 4 }, // Ollama
  32: custom('https://api.stepfun.com'),
  34: { type: 49 }, // Coze
  35: { type: 34 }, // Cohere
  36: { type: 43 }, // DeepSeek
  37: { type: 39 }, // Cloudflare
  38: no('DeepL'),
  39: custom('https://api.together.xyz'),
  40: { type: 45 }, // Doubao (Volcano Engine)
  41: custom('https://api.novita.ai/v3/openai/chat/completions'),
  42: { type: 41 }, // Vertex AI
  43: no('Proxy'),
  44: { type: 40 }, // SiliconFlow
  45: { type: 48 }, // xAI
  46: no('Replicate'),
  47: { type: 46 }, // Baidu v2
  48: custom('https://spark-api-open.xf-yun.com'),
  49: custom('https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions'),
  50: { type: CUSTOM },
  51: custom('https://generativelanguage.googleapis.com/v1beta/openai/chat/completions'),
};

export function mapChannelType(flavor: Flavor, type: number): TypeMapping {
  const table = flavor === 'one-api' ? ONE_API : NEW_API;
  const m = table[type];
  if (m) return m;
  if (channelTypeInfo(type)) return { type };
  return no(`type ${type}`);
}
