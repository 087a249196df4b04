import type { ChannelModelCost } from '@modelgate/shared';
import type { ChannelEntry } from '../table-cache/channels.ts';
import type { ModelPricing, PriceCache } from '../table-cache/prices.ts';
import { type Price, withGroupRatio } from './quota.ts';

/** A channel's upstream price as the relay reads it (see @modelgate/shared channel-cost.ts). */
interface CostSettings {
  /** `cost_ratio`: the multiple of the official price (1 when unset). */
  ratio: number;
  /** `cost_prices`: the channel's own price per model name. */
  models: Map<string, ChannelModelCost>;
}

const nonNegative = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** One model's own price, or undefined when it names neither a usable price nor a usable ratio. */
function modelCost(v: unknown): ChannelModelCost | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  const price = nonNegative(e.price);
  if (price !== undefined) return { price };
  const ratio = nonNegative(e.ratio);
  if (ratio === undefined) return undefined;
  return {
    ratio,
    completion_ratio: nonNegative(e.completion_ratio),
    cache_ratio: nonNegative(e.cache_ratio),
    cache_write_ratio: nonNegative(e.cache_write_ratio),
  };
}

/**
 * Parsed once per channel load: the cache is keyed by the setting object, which an attempt's copy of a
 * multi-key channel shares, and which a reload replaces. Saves are checked, so what does not parse here is a
 * row written before the check or by hand: it counts as unset.
 */
const parsed = new WeakMap<Record<string, unknown>, CostSettings>();

export function costSettings(ch: ChannelEntry): CostSettings {
  const hit = parsed.get(ch.setting);
  if (hit) return hit;
  const models = new Map<string, ChannelModelCost>();
  const raw = ch.setting.cost_prices;
  if (raw && typeof raw === 'object' && !Array.isArray(raw))
    for (const [name, v] of Object.entries(raw)) {
      const cost = modelCost(v);
      if (cost) models.set(name, cost);
    }
  const settings = { ratio: nonNegative(ch.setting.cost_ratio) ?? 1, models };
  parsed.set(ch.setting, settings);
  return settings;
}

/** What an unpriced model counts as when nothing else prices it (the cheapest mode's neutral price). */
export const UNIT_PRICING: ModelPricing = {
  modelRatio: 1,
  completionRatio: 1,
  cacheRatio: 1,
  cacheWriteRatio: 1,
  modelPrice: -1,
};

/**
 * What the channel's upstream charges for `model`, shaped as a sale price so the charge's own formulas
 * (textQuota, imageQuota, audioQuota, fixedQuota) compute the cost exactly: the channel's per-model price with
 * a group ratio of 1 when `cost_prices` names the model (by the name the channel calls upstream, then the name
 * asked for), else the official price of the upstream model with the channel's cost ratio in place of the group
 * ratio. `fallback` prices a model that no table names (the sale's unset price, or UNIT_PRICING).
 */
export function upstreamPrice(
  prices: PriceCache,
  ch: ChannelEntry,
  model: string,
  fallback: ModelPricing,
): Price {
  const mapped = ch.modelMapping[model];
  const upstream = typeof mapped === 'string' && mapped ? mapped : model;
  const settings = costSettings(ch);
  const own = settings.models.get(upstream) ?? settings.models.get(model);
  const official = prices.model(upstream) ?? prices.model(model) ?? fallback;
  if (!own) return withGroupRatio(official, settings.ratio);
  if (own.price !== undefined)
    return {
      modelRatio: 0,
      completionRatio: 1,
      cacheRatio: 1,
      cacheWriteRatio: 1,
      modelPrice: own.price,
      groupRatio: 1,
    };
  return {
    modelRatio: own.ratio ?? 0,
    completionRatio: own.completion_ratio ?? official.completionRatio,
    cacheRatio: own.cache_ratio ?? official.cacheRatio,
    cacheWriteRatio: own.cache_write_ratio ?? official.cacheWriteRatio,
    modelPrice: -1,
    groupRatio: 1,
  };
}
