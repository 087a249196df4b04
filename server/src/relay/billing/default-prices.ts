import { MJ_DEFAULT_PRICES } from '../tasks/midjourney/actions.ts';
import { SUNO_DEFAULT_PRICES } from '../tasks/suno/protocol.ts';

/**
 * Built-in prices for well-known models, used when the ModelRatio / CompletionRatio / CacheRatio / ModelPrice
 * options do not name a model. Ratio 1 = US$0.002 per 1K prompt tokens (US$2 per 1M); ModelPrice is US$ per
 * request. The pricing page and the "reset model ratios" action reuse these tables.
 */
export const DEFAULT_MODEL_RATIO: Record<string, number> = {
  // OpenAI chat
  'gpt-4o': 1.25,
  'gpt-4o-2024-05-13': 2.5,
  'gpt-4o-2024-08-06': 1.25,
  'gpt-4o-2024-11-20': 1.25,
  'chatgpt-4o-latest': 2.5,
  'gpt-4o-mini': 0.075,
  'gpt-4o-mini-2024-07-18': 0.075,
  'gpt-4.1': 1,
  'gpt-4.1-2025-04-14': 1,
  'gpt-4.1-mini': 0.2,
  'gpt-4.1-mini-2025-04-14': 0.2,
  'gpt-4.1-nano': 0.05,
  'gpt-4.1-nano-2025-04-14': 0.05,
  'gpt-4-turbo': 5,
  'gpt-4': 15,
  'gpt-3.5-turbo': 0.25,
  'gpt-3.5-turbo-instruct': 0.75,
  'gpt-5': 0.625,
  'gpt-5-mini': 0.125,
  'gpt-5-nano': 0.025,
  o1: 7.5,
  'o1-mini': 0.55,
  o3: 1,
  'o3-mini': 0.55,
  'o4-mini': 0.55,
  // OpenAI other endpoints
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'omni-moderation-latest': 0,
  'text-moderation-latest': 0,
  'text-moderation-stable': 0,
  'whisper-1': 15,
  'tts-1': 7.5,
  'tts-1-hd': 15,
  'gpt-4o-mini-tts': 0.3,
  'gpt-4o-transcribe': 1.25,
  'gpt-4o-mini-transcribe': 0.625,
  // OpenAI Realtime (text prices; audio in AUDIO_RATIO below)
  'gpt-realtime': 2,
  'gpt-realtime-2025-08-28': 2,
  'gpt-realtime-mini': 0.3,
  'gpt-realtime-mini-2025-10-06': 0.3,
  'gpt-4o-realtime-preview': 2.5,
  'gpt-4o-realtime-preview-2024-10-01': 2.5,
  'gpt-4o-realtime-preview-2024-12-17': 2.5,
  'gpt-4o-realtime-preview-2025-06-03': 2.5,
  'gpt-4o-mini-realtime-preview': 0.3,
  'gpt-4o-mini-realtime-preview-2024-12-17': 0.3,
  // Other providers reached through OpenAI-compatible channels
  'deepseek-chat': 0.135,
  'deepseek-reasoner': 0.275,
  'grok-3': 1.5,
  'grok-3-mini': 0.15,
  'grok-4': 1.5,
  'mistral-small-latest': 0.05,
  'mistral-medium-latest': 0.2,
  'mistral-large-latest': 1,
  'claude-3-5-sonnet-20241022': 1.5,
  'claude-3-5-haiku-20241022': 0.4,
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-sonnet-4-5-20250929': 1.5,
  'claude-opus-4-20250514': 7.5,
  'gemini-2.0-flash': 0.05,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-pro': 0.625,
  'jina-reranker-v2-base-multilingual': 0.01,
  'rerank-v3.5': 1,
};

/** The realtime models of the table above, each with the same value. */
function realtime(value: number): Record<string, number> {
  return Object.fromEntries(
    Object.keys(DEFAULT_MODEL_RATIO)
      .filter((m) => m.includes('realtime'))
      .map((m) => [m, value]),
  );
}

/** Output price / input price; models not listed here or in the option use 1. */
export const DEFAULT_COMPLETION_RATIO: Record<string, number> = {
  'gpt-4o': 4,
  'gpt-4o-2024-05-13': 3,
  'gpt-4o-2024-08-06': 4,
  'gpt-4o-2024-11-20': 4,
  'chatgpt-4o-latest': 3,
  'gpt-4o-mini': 4,
  'gpt-4o-mini-2024-07-18': 4,
  'gpt-4.1': 4,
  'gpt-4.1-2025-04-14': 4,
  'gpt-4.1-mini': 4,
  'gpt-4.1-mini-2025-04-14': 4,
  'gpt-4.1-nano': 4,
  'gpt-4.1-nano-2025-04-14': 4,
  'gpt-4-turbo': 3,
  'gpt-4': 2,
  'gpt-3.5-turbo': 3,
  'gpt-5': 8,
  'gpt-5-mini': 8,
  'gpt-5-nano': 8,
  o1: 4,
  'o1-mini': 4,
  o3: 4,
  'o3-mini': 4,
  'o4-mini': 4,
  'deepseek-chat': 4,
  'deepseek-reasoner': 4,
  'grok-3': 5,
  'grok-3-mini': 1.6667,
  'grok-4': 5,
  'mistral-small-latest': 3,
  'mistral-medium-latest': 5,
  'mistral-large-latest': 3,
  'claude-3-5-sonnet-20241022': 5,
  'claude-3-5-haiku-20241022': 5,
  'claude-3-7-sonnet-20250219': 5,
  'claude-sonnet-4-20250514': 5,
  'claude-sonnet-4-5-20250929': 5,
  'claude-opus-4-20250514': 5,
  'gemini-2.0-flash': 4,
  'gemini-2.5-flash': 8.3333,
  'gemini-2.5-pro': 8,
  'gpt-4o-mini-tts': 40,
  'gpt-4o-transcribe': 4,
  'gpt-4o-mini-transcribe': 4,
  ...realtime(4),
};

/** Price of cached prompt tokens relative to fresh ones; models not listed use 1. */
export const DEFAULT_CACHE_RATIO: Record<string, number> = {
  'gpt-4o': 0.5,
  'gpt-4o-2024-08-06': 0.5,
  'gpt-4o-2024-11-20': 0.5,
  'gpt-4o-mini': 0.5,
  'gpt-4o-mini-2024-07-18': 0.5,
  'gpt-4.1': 0.25,
  'gpt-4.1-2025-04-14': 0.25,
  'gpt-4.1-mini': 0.25,
  'gpt-4.1-mini-2025-04-14': 0.25,
  'gpt-4.1-nano': 0.25,
  'gpt-4.1-nano-2025-04-14': 0.25,
  'gpt-5': 0.1,
  'gpt-5-mini': 0.1,
  'gpt-5-nano': 0.1,
  o1: 0.5,
  o3: 0.25,
  'o3-mini': 0.5,
  'o4-mini': 0.25,
  'deepseek-chat': 0.25,
  'deepseek-reasoner': 0.25,
  'grok-3': 0.25,
  'grok-3-mini': 0.25,
  'grok-4': 0.25,
  'claude-3-5-sonnet-20241022': 0.1,
  'claude-3-5-haiku-20241022': 0.1,
  'claude-3-7-sonnet-20250219': 0.1,
  'claude-sonnet-4-20250514': 0.1,
  'claude-sonnet-4-5-20250929': 0.1,
  'claude-opus-4-20250514': 0.1,
  'gpt-realtime': 0.1,
  'gpt-realtime-2025-08-28': 0.1,
  'gpt-realtime-mini': 0.1,
  'gpt-realtime-mini-2025-10-06': 0.1,
  'gpt-4o-realtime-preview': 0.5,
  'gpt-4o-realtime-preview-2024-10-01': 0.5,
  'gpt-4o-realtime-preview-2024-12-17': 0.5,
  'gpt-4o-realtime-preview-2025-06-03': 0.5,
  'gpt-4o-mini-realtime-preview': 0.5,
  'gpt-4o-mini-realtime-preview-2024-12-17': 0.5,
};

/** Fixed US$ per request; a model listed here is billed per call, not per token. */
export const DEFAULT_MODEL_PRICE: Record<string, number> = {
  ...MJ_DEFAULT_PRICES,
  ...SUNO_DEFAULT_PRICES,
  'dall-e-2': 0.02,
  'dall-e-3': 0.04,
  'gpt-image-1': 0.04,
};

/**
 * Price of a prompt token written to the cache, relative to a plain prompt token, from the providers' price
 * lists: Anthropic charges 1.25x for a 5-minute write (2x for 1 hour, see CACHE_WRITE_1H_FACTOR). OpenAI,
 * DeepSeek, xAI and Gemini charge nothing extra for writes, so their models are left at the default 1.
 */
export const DEFAULT_CREATE_CACHE_RATIO: Record<string, number> = Object.fromEntries(
  Object.keys(DEFAULT_CACHE_RATIO)
    .filter((m) => m.startsWith('claude'))
    .map((m) => [m, 1.25]),
);

/**
 * Price of an audio input token relative to a text input token (option AudioRatio), from OpenAI's price list:
 * gpt-realtime $32 vs $4 per 1M, the 2024-10-01 preview $100 vs $5, the minis $10 vs $0.60.
 */
export const DEFAULT_AUDIO_RATIO: Record<string, number> = {
  'gpt-realtime': 8,
  'gpt-realtime-2025-08-28': 8,
  'gpt-realtime-mini': 16.6667,
  'gpt-realtime-mini-2025-10-06': 16.6667,
  'gpt-4o-realtime-preview': 8,
  'gpt-4o-realtime-preview-2024-10-01': 20,
  'gpt-4o-realtime-preview-2024-12-17': 8,
  'gpt-4o-realtime-preview-2025-06-03': 8,
  'gpt-4o-mini-realtime-preview': 16.6667,
  'gpt-4o-mini-realtime-preview-2024-12-17': 16.6667,
};

/** Price of an audio output token relative to an audio input token (option AudioCompletionRatio). */
export const DEFAULT_AUDIO_COMPLETION_RATIO: Record<string, number> = realtime(2);

/** Audio ratios of a model neither table nor option names (new-api's fallbacks). */
export const UNLISTED_AUDIO_RATIO = 20;
export const UNLISTED_AUDIO_COMPLETION_RATIO = 2;
