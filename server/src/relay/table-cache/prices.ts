import type { AppContext } from '../../context.ts';
import {
  DEFAULT_AUDIO_COMPLETION_RATIO,
  DEFAULT_AUDIO_RATIO,
  DEFAULT_CACHE_RATIO,
  DEFAULT_COMPLETION_RATIO,
  DEFAULT_CREATE_CACHE_RATIO,
  DEFAULT_MODEL_PRICE,
  DEFAULT_MODEL_RATIO,
  UNLISTED_AUDIO_COMPLETION_RATIO,
  UNLISTED_AUDIO_RATIO,
} from '../billing/default-prices.ts';
import type { AudioPrice } from '../billing/quota.ts';

type Table = Record<string, number>;

/**
 * Tables without a prototype: model names come from clients, and `constructor` or `toString` must not read
 * as priced models.
 */
const table = (...parts: Table[]): Table => Object.assign(Object.create(null), ...parts);

/** One model's price before the group ratio; null when neither a ratio nor a per-call price is known. */
export interface ModelPricing {
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  cacheWriteRatio: number;
  modelPrice: number;
}

/**
 * Prices from the options (ModelRatio, CompletionRatio, CacheRatio, CreateCacheRatio, ModelPrice, GroupRatio,
 * AudioRatio, AudioCompletionRatio) over the built-in tables, merged once per option change so a lookup is a few map reads.
 */
export class PriceCache {
  private ratio: Table = {};
  private completion: Table = {};
  private cache: Table = {};
  private cacheWrite: Table = {};
  private price: Table = {};
  private group: Table = {};
  private audioIn: Table = {};
  private audioOut: Table = {};
  /** Models priced so far since the last reload (only priced names: clients choose the names asked for). */
  private models = new Map<string, Readonly<ModelPricing>>();
  /** Set by the first completed load (readiness waits for it). */
  loaded = false;

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
          'AudioRatio',
          'AudioCompletionRatio',
        ].includes(key)
      )
        this.reload();
    });
  }

  reload(): void {
    const startedAt = performance.now();
    const opt = (key: string): Table => {
      const v = this.ctx.options.json<unknown>(key);
      const out: Table = {};
      if (v && typeof v === 'object')
        for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n)) out[k] = n;
      return out;
    };
    this.ratio = table(DEFAULT_MODEL_RATIO, opt('ModelRatio'));
    this.completion = table(DEFAULT_COMPLETION_RATIO, opt('CompletionRatio'));
    this.cache = table(DEFAULT_CACHE_RATIO, opt('CacheRatio'));
    this.cacheWrite = table(DEFAULT_CREATE_CACHE_RATIO, opt('CreateCacheRatio'));
    this.price = table(DEFAULT_MODEL_PRICE, opt('ModelPrice'));
    this.group = table(opt('GroupRatio'));
    this.audioIn = table(DEFAULT_AUDIO_RATIO, opt('AudioRatio'));
    this.audioOut = table(DEFAULT_AUDIO_COMPLETION_RATIO, opt('AudioCompletionRatio'));
    this.models = new Map();
    this.loaded = true;
    this.ctx.metrics?.cacheReloaded('prices', performance.now() - startedAt, true);
  }

  /** Whether a ratio or a per-call price names the model. */
  has(name: string): boolean {
    return Object.hasOwn(this.price, name) || Object.hasOwn(this.ratio, name);
  }

  /** A model's audio ratios (new-api's fallbacks for a model no table names). */
  audio(name: string): AudioPrice {
    return {
      audioRatio: this.audioIn[name] ?? UNLISTED_AUDIO_RATIO,
      audioCompletionRatio: this.audioOut[name] ?? UNLISTED_AUDIO_COMPLETION_RATIO,
    };
  }

  model(name: string): Readonly<ModelPricing> | null {
    const known = this.models.get(name);
    if (known) return known;
    const price = this.price[name];
    const ratio = this.ratio[name];
    if (price === undefined && ratio === undefined) return null;
    const pricing = Object.freeze({
      modelRatio: ratio ?? 0,
      completionRatio: this.completion[name] ?? 1,
      cacheRatio: this.cache[name] ?? 1,
      cacheWriteRatio: this.cacheWrite[name] ?? 1,
      modelPrice: price ?? -1,
    });
    this.models.set(name, pricing);
    return pricing;
  }

  hasGroup(group: string): boolean {
    return Object.hasOwn(this.group, group);
  }

  groupRatio(group: string): number {
    return this.group[group] ?? 1;
  }
}
