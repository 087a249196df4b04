/**
 * Default model names per channel type: what the channel form pre-fills when a type is chosen
 * (`GET /api/models`) and the "known models" list (`GET /api/channel/models`).
 */
const OPENAI = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'o1',
  'o3',
  'o3-mini',
  'o4-mini',
  'gpt-4-turbo',
  'gpt-3.5-turbo',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'text-embedding-ada-002',
  'dall-e-3',
  'whisper-1',
  'tts-1',
];
const CLAUDE = [
  'claude-3-5-haiku-20241022',
  'claude-3-5-sonnet-20241022',
  'claude-3-7-sonnet-20250219',
  'claude-sonnet-4-20250514',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
];
const GEMINI = [
  'gemini-2.0-flash',
  'gemini-2.0-flash-lite',
  'gemini-2.5-flash',
  'gemini-2.5-pro',
  'text-embedding-004',
];

export const DEFAULT_MODELS: Record<number, string[]> = {
  1: OPENAI,
  3: OPENAI,
  4: ['llama3.1', 'qwen2.5', 'mistral'],
  8: OPENAI,
  11: ['PaLM-2'],
  14: CLAUDE,
  15: ['ERNIE-4.0-8K', 'ERNIE-3.5-8K', 'ERNIE-Speed-8K'],
  46: ['ernie-4.0-8k', 'ernie-3.5-8k'],
  16: ['glm-4', 'glm-4v', 'glm-3-turbo'],
  26: ['glm-4', 'glm-4v', 'glm-4-flash'],
  17: ['qwen-turbo', 'qwen-plus', 'qwen-max', 'text-embedding-v1'],
  18: ['SparkDesk-v3.5', 'SparkDesk-v4.0'],
  19: ['360GPT_S2_V9', 'embedding-bert-512-v1'],
  20: ['openai/gpt-4o', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.0-flash-001'],
  23: ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-pro'],
  24: GEMINI,
  25: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'],
  31: ['yi-large', 'yi-medium', 'yi-lightning'],
  33: ['claude-3-5-sonnet-20241022', 'claude-3-5-haiku-20241022'],
  34: ['command-r', 'command-r-plus'],
  35: ['abab6.5-chat', 'abab6.5s-chat'],
  2: ['mj_imagine', 'mj_variation', 'mj_upscale', 'mj_blend', 'mj_describe'],
  5: ['mj_imagine', 'mj_variation', 'mj_upscale', 'mj_blend', 'mj_describe'],
  36: ['suno_music', 'suno_lyrics'],
  37: ['dify'],
  38: ['jina-embeddings-v3', 'jina-reranker-v2-base-multilingual'],
  39: ['@cf/meta/llama-3.1-8b-instruct'],
  40: ['deepseek-ai/DeepSeek-V3', 'Qwen/Qwen2.5-72B-Instruct', 'BAAI/bge-m3'],
  41: [...CLAUDE, ...GEMINI],
  42: ['mistral-large-latest', 'mistral-small-latest', 'open-mistral-nemo', 'mistral-embed'],
  43: ['deepseek-chat', 'deepseek-reasoner'],
  44: ['m3e-base', 'm3e-large'],
  45: ['doubao-pro-32k', 'doubao-lite-32k'],
  47: ['bge-m3', 'qwen2.5-instruct'],
  48: ['grok-3', 'grok-3-mini', 'grok-2-vision-1212'],
  49: ['coze-bot'],
};

/** Every default model name once, sorted. */
export const KNOWN_MODELS: string[] = [...new Set(Object.values(DEFAULT_MODELS).flat())].sort();
