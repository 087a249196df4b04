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

/**
 * Puts ModelRatio, CompletionRatio, CacheRatio, CreateCacheRatio, ModelPrice, AudioRatio and AudioCompletionRatio
 * back to the built-in tables.
 */
export async function resetModelPrices(ctx: AppContext): Promise<void> {
  await ctx.options.set('ModelRatio', JSON.stringify(DEFAULT_MODEL_RATIO));
  await ctx.options.set('CompletionRatio', JSON.stringify(DEFAULT_COMPLETION_RATIO));
  await ctx.options.set('CacheRatio', JSON.stringify(DEFAULT_CACHE_RATIO));
  await ctx.options.set('CreateCacheRatio', JSON.stringify(DEFAULT_CREATE_CACHE_RATIO));
  await ctx.options.set('ModelPrice', JSON.stringify(DEFAULT_MODEL_PRICE));
  await ctx.options.set('AudioRatio', JSON.stringify(DEFAULT_AUDIO_RATIO));
  await ctx.options.set('AudioCompletionRatio', JSON.stringify(DEFAULT_AUDIO_COMPLETION_RATIO));
}
