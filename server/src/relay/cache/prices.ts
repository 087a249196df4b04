import type { AppContext } from '../../context.ts';
import {
  DEFAULT_CACHE_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CREATE_CACHE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
} from '../billing/default-prices.ts';
import type { Price } from '../billing/quota.ts';

type Table = Record<string, number>;

/** One model's price before the group ratio; null when neither a ratio nor a per-call price is known. */
export interface ModelPricing {
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  cacheWriteRatio: number;
  modelPrice: number;
}

/**
 * Prices from the options (ModelRatio, CompletionRatio, CacheRatio, CreateCacheRatio, ModelPrice, GroupRatio) over the built-in
 * tables, merged once per option change so a lookup is a few map reads.
 */
export class PriceCache {
  private ratio: Table = {};
  private completion: Table = {};
  private cache: Table = {};
  private cacheWrite: Table = {};
  private price: Table = {};
  private group: Table = {};

  constructor(private readonly ctx: AppContext) {
    this.reload();
    ctx.options.onChange((key) => {
      if (
        [
          'ModelRatio',
          'CompletionRatio',
          'CacheRatio',
          'CreateCacheRatio',
          'ModelPrice',
          'GroupRatio',
        ].includes(key)
      )
        this.reload();
    });
  }

  reload(): void {
    const opt = (key: string): Table => {
      const v = this.ctx.options.json<unknown>(key);
      const out: Table = {};
      if (v && typeof v === 'object')
        for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n)) out[k] = n;
      return out;
    };
    this.ratio = { ...DEFAULT_MODEL_RATIO, ...opt('ModelRatio') };
    this.completion = { ...DEFAULT_COMPLETION_RATIO, ...opt('CompletionRatio') };
    this.cache = { ...DEFAULT_CACHE_RATIO, ...opt('CacheRatio') };
    this.cacheWrite = { ...DEFAULT_CREATE_CACHE_RATIO, ...opt('CreateCacheRatio') };
    this.price = { ...DEFAULT_MODEL_PRICE, ...opt('ModelPrice') };
    this.group = opt('GroupRatio');
  }

  model(name: string): ModelPricing | null {
    const price = this.price[name];
    const ratio = this.ratio[name];
    if (price === undefined && ratio === undefined) return null;
    return {
      modelRatio: ratio ?? 0,
      completionRatio: this.completion[name] ?? 1,
      cacheRatio: this.cache[name] ?? 1,
      cacheWriteRatio: this.cacheWrite[name] ?? 1,
      modelPrice: price ?? -1,
    };
  }

  hasGroup(group: string): boolean {
    return Object.hasOwn(this.group, group);
  }

  groupRatio(group: string): number {
    return this.group[group] ?? 1;
  }

  /** The full price of a model for a group, or null when the model is unpriced. */
  lookup(model: string, group: string): Price | null {
    const m = this.model(model);
    return m ? { ...m, groupRatio: this.groupRatio(group) } : null;
  }
}
