/**
 * Wenxin Workshop endpoint names of the models whose endpoint is not simply their lower-cased name (those
 * need no entry). A custom deployment is reached by naming the model after its endpoint, or through the
 * channel's model mapping.
 */
const CHAT: Record<string, string> = {
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-Bot': 'completions',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Character-8K': 'ernie-char-8k',
  'ERNIE-Character-Fiction-8K': 'ernie-char-fiction-8k',
  'ERNIE-Functions-8K': 'ernie-func-8k',
  'BLOOMZ-7B': 'bloomz_7b1',
  'Llama-2-7B-Chat': 'llama_2_7b',
  'Llama-2-13B-Chat': 'llama_2_13b',
  'Llama-2-70B-Chat': 'llama_2_70b',
};

const EMBEDDINGS: Record<string, string> = {
  'Embedding-V1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

export const chatEndpoint = (model: string) => CHAT[model] ?? model.toLowerCase();

export const embeddingEndpoint = (model: string) => EMBEDDINGS[model] ?? model.toLowerCase();
