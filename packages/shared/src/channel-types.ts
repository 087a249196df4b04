/** Channel types by numeric id. `openai` marks those that speak OpenAI's wire format. */
export interface ChannelTypeInfo {
  id: number;
  name: string;
  openai: boolean;
  defaultBaseUrl: string;
  /** Key format hint shown in the channel form. */
  keyHint?: string;
  /** Why the type should no longer be chosen (its upstream API is gone), when it is deprecated. */
  deprecated?: string;
  /** What the channel's `other` field holds for this type, when it holds something. */
  other?: OtherField;
  /** The hint under the base URL field (a key of the console's `channel.*` texts). */
  baseUrlHint?: string;
  /** The form asks for an organization (OpenAI's `OpenAI-Organization` header). */
  organization?: boolean;
  /**
   * A key is one multi-line JSON document (a service account): entered in a text area and split into one
   * channel per line only in batch mode; several keys are a JSON array.
   */
  keyIsDocument?: boolean;
  /** A notice the channel form shows when the type is chosen (a key of the console's `channel.*` texts). */
  notice?: string;
}

/** The channel form's `other` field for a type. Labels, placeholders and hints are keys of `channel.*` texts. */
export interface OtherField {
  label: string;
  kind: 'text' | 'select' | 'json';
  placeholder?: string;
  hint?: string;
  /** For `select`: the values offered. */
  options?: string[];
  /** The value a new channel gets when the form leaves the field empty. */
  default?: string;
  /** For `json`: the name of the example the "fill template" button puts in. */
  template?: string;
}

export const CHANNEL_TYPES: ChannelTypeInfo[] = [
  { id: 1, name: 'OpenAI', openai: true, defaultBaseUrl: 'https://api.openai.com', organization: true },
  { id: 2, name: 'Midjourney Proxy', openai: false, defaultBaseUrl: '', notice: 'mjNotice' },
  { id: 5, name: 'Midjourney Proxy Plus', openai: false, defaultBaseUrl: '', notice: 'mjNotice' },
  {
    id: 3,
    name: 'Azure OpenAI',
    openai: true,
    defaultBaseUrl: '',
    baseUrlHint: 'azureEndpoint',
    other: { label: 'azureVersion', kind: 'text', placeholder: 'azureVersionPlaceholder' },
  },
  { id: 4, name: 'Ollama', openai: true, defaultBaseUrl: 'http://localhost:11434' },
  { id: 8, name: 'Custom', openai: true, defaultBaseUrl: '', baseUrlHint: 'customUrl' },
  {
    id: 11,
    name: 'Google PaLM2',
    openai: false,
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    deprecated:
      'Google shut the PaLM API down on 2024-08-15. These channels are served by the Gemini API with the same key: PaLM model names go to gemini-2.0-flash unless the model mapping names another model. Create Google Gemini channels instead.',
  },
  { id: 14, name: 'Anthropic Claude', openai: false, defaultBaseUrl: 'https://api.anthropic.com' },
  {
    id: 15,
    name: 'Baidu Wenxin',
    openai: false,
    defaultBaseUrl: 'https://aip.baidubce.com',
    keyHint: 'APIKey|SecretKey',
  },
  { id: 46, name: 'Baidu Wenxin v2', openai: true, defaultBaseUrl: 'https://qianfan.baidubce.com' },
  { id: 16, name: 'Zhipu ChatGLM', openai: false, defaultBaseUrl: 'https://open.bigmodel.cn' },
  { id: 26, name: 'Zhipu GLM-4V', openai: true, defaultBaseUrl: 'https://open.bigmodel.cn' },
  { id: 17, name: 'Alibaba Qwen', openai: false, defaultBaseUrl: 'https://dashscope.aliyuncs.com' },
  {
    id: 18,
    name: 'iFlytek Spark',
    openai: false,
    defaultBaseUrl: '',
    keyHint: 'APPID|APISecret|APIKey',
    other: {
      label: 'sparkVersion',
      kind: 'select',
      options: ['v1.1', 'v2.1', 'v3.1', 'v3.5', 'v4.0', 'pro-128k', 'max-32k'],
      default: 'v2.1',
    },
  },
  { id: 19, name: '360 Zhinao', openai: true, defaultBaseUrl: 'https://api.360.cn' },
  { id: 20, name: 'OpenRouter', openai: true, defaultBaseUrl: 'https://openrouter.ai/api' },
  {
    id: 21,
    name: 'Knowledge base: AI Proxy',
    openai: true,
    defaultBaseUrl: 'https://api.aiproxy.io',
    other: { label: 'knowledgeId', kind: 'text' },
  },
  {
    id: 22,
    name: 'Knowledge base: FastGPT',
    openai: true,
    defaultBaseUrl: 'https://fastgpt.run/api/openapi',
    keyHint: 'APIKey-AppId',
    notice: 'fastgptNotice',
  },
  {
    id: 23,
    name: 'Tencent Hunyuan',
    openai: false,
    defaultBaseUrl: 'https://hunyuan.tencentcloudapi.com',
    keyHint: 'AppId|SecretId|SecretKey',
  },
  {
    id: 24,
    name: 'Google Gemini',
    openai: false,
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  },
  { id: 25, name: 'Moonshot', openai: true, defaultBaseUrl: 'https://api.moonshot.cn' },
  { id: 31, name: 'Yi (01.AI)', openai: true, defaultBaseUrl: 'https://api.lingyiwanwu.com' },
  { id: 33, name: 'AWS Claude', openai: false, defaultBaseUrl: '', keyHint: 'Ak|Sk|Region' },
  { id: 34, name: 'Cohere', openai: false, defaultBaseUrl: 'https://api.cohere.ai' },
  { id: 35, name: 'MiniMax', openai: true, defaultBaseUrl: 'https://api.minimax.chat' },
  { id: 36, name: 'Suno API', openai: false, defaultBaseUrl: '', notice: 'sunoNotice' },
  { id: 37, name: 'Dify', openai: false, defaultBaseUrl: '', notice: 'difyNotice' },
  { id: 38, name: 'Jina', openai: true, defaultBaseUrl: 'https://api.jina.ai' },
  {
    id: 39,
    name: 'Cloudflare',
    openai: true,
    defaultBaseUrl: 'https://api.cloudflare.com',
    other: { label: 'cloudflareAccount', kind: 'text' },
  },
  {
    id: 40,
    name: 'SiliconCloud',
    openai: true,
    defaultBaseUrl: 'https://api.siliconflow.cn',
    notice: 'siliconNotice',
  },
  {
    id: 41,
    name: 'Vertex AI',
    openai: false,
    defaultBaseUrl: '',
    keyHint: 'service-account JSON',
    keyIsDocument: true,
    other: { label: 'vertexRegion', kind: 'json', hint: 'vertexRegionHint', template: 'vertex_region' },
  },
  { id: 42, name: 'Mistral AI', openai: true, defaultBaseUrl: 'https://api.mistral.ai' },
  { id: 43, name: 'DeepSeek', openai: true, defaultBaseUrl: 'https://api.deepseek.com' },
  { id: 44, name: 'M3E', openai: true, defaultBaseUrl: '' },
  { id: 45, name: 'Volcano Engine', openai: true, defaultBaseUrl: 'https://ark.cn-beijing.volces.com' },
  { id: 47, name: 'Xinference', openai: true, defaultBaseUrl: '' },
  { id: 48, name: 'xAI', openai: true, defaultBaseUrl: 'https://api.x.ai' },
  { id: 49, name: 'Coze', openai: false, defaultBaseUrl: 'https://api.coze.cn' },
];

const byId = new Map(CHANNEL_TYPES.map((t) => [t.id, t]));
export const channelTypeInfo = (id: number): ChannelTypeInfo | undefined => byId.get(id);

/** Names for the channel types the relay's code refers to by id. */
export const ChannelType = {
  OpenAI: 1,
  Azure: 3,
  Ollama: 4,
  Custom: 8,
  Anthropic: 14,
  OpenRouter: 20,
  Gemini: 24,
  ZhipuV4: 26,
  VolcEngine: 45,
  BaiduV2: 46,
  XAI: 48,
} as const;
