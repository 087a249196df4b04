import type { AppContext } from '../../context.ts';
import {
  DEFAULT_AUDIO_COMPLETION_RATIO,
  DEFAULT_AUDIO_RATIO,
  DEFAULT_CACHE_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CREATE_CACHE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
} from '../../relay/billing/default-prices.ts';

/** The built-in price tables by the option each one stands under (the relay reads the option over its table). */
export const BUILT_IN_PRICES: Record<string, Record<string, number>> = {
  ModelPrice: DEFAULT_MODEL_PRICE,
  ModelRatio: DEFAULT_MODEL_RATIO,
  CompletionRatio: DEFAULT_COMPLETION_RATIO,
  CacheRatio: DEFAULT_CACHE_RATIO,
  CreateCacheRatio: DEFAULT_CREATE_CACHE_RATIO,
  AudioRatio: DEFAULT_AUDIO_RATIO,
  AudioCompletionRatio: DEFAULT_AUDIO_COMPLETION_RATIO,
};

/**
 * Puts ModelRatio, CompletionRatio, CacheRatio, CreateCacheRatio, ModelPrice, AudioRatio and AudioCompletionRatio
 * back to the built-in tables.
 */
export async function resetModelPrices(ctx: AppContext): Promise<void> {
  for (const [key, table] of Object.entries(BUILT_IN_PRICES))
    await ctx.options.set(key, JSON.stringify(table));
}
