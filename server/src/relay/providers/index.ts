import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { aliAdapter } from './ali/index.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import { azureAdapter } from './azure/index.ts';
import { baiduAdapter } from './baidu/index.ts';
import { bedrockAdapter } from './bedrock/index.ts';
import { cloudflareAdapter } from './cloudflare/index.ts';
import { cohereAdapter } from './cohere/index.ts';
import { cozeAdapter } from './coze/index.ts';
import { difyAdapter } from './dify/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { hunyuanAdapter } from './hunyuan/index.ts';
import { OPENAI_HOSTS_WITH_BALANCE } from './openai/balances.ts';
import { openaiAdapter } from './openai/index.ts';
import { palmAdapter } from './palm/index.ts';
import type { ProviderAdapter } from './types.ts';
import { vertexAdapter } from './vertex/index.ts';
import { xunfeiAdapter } from './xunfei/index.ts';
import { zhipuAdapter } from './zhipu/index.ts';

/** Adapters by channel type; a type not listed falls back to OpenAI's when it speaks that format. */
const BY_TYPE: Record<number, ProviderAdapter> = {
  ...OPENAI_HOSTS_WITH_BALANCE, // OpenAI, Custom, OpenRouter, Moonshot, SiliconCloud, DeepSeek
  [ChannelType.Azure]: azureAdapter,
  [ChannelType.Anthropic]: anthropicAdapter,
  [ChannelType.Gemini]: geminiAdapter,
  11: palmAdapter, // Google PaLM2 (deprecated: served by the Gemini API)
  15: baiduAdapter, // Baidu Wenxin
  16: zhipuAdapter, // Zhipu ChatGLM (v3 API)
  17: aliAdapter, // Alibaba Qwen (DashScope)
  18: xunfeiAdapter, // iFlytek Spark
  23: hunyuanAdapter, // Tencent Hunyuan
  33: bedrockAdapter, // AWS Claude (Bedrock)
  34: cohereAdapter, // Cohere
  37: difyAdapter, // Dify
  39: cloudflareAdapter, // Cloudflare Workers AI
  41: vertexAdapter, // Google Vertex AI
  49: cozeAdapter, // Coze
};

export function adapterFor(type: number): ProviderAdapter | null {
  return BY_TYPE[type] ?? (channelTypeInfo(type)?.openai ? openaiAdapter : null);
}
