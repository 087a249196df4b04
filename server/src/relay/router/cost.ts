import type { ChannelEntry } from '../cache/channels.ts';
import type { PriceCache } from '../cache/prices.ts';

/** `setting.cost_ratio`: what the channel's upstream charges as a multiple of the official price (default 1). */
export function costRatio(ch: ChannelEntry): number {
  const v = ch.setting.cost_ratio;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 1;
}

/** A model's official price as one number: its per-call price when it has one, else input + output ratio. */
function listPrice(prices: PriceCache, model: string): number | null {
  const p = prices.model(model);
  if (!p) return null;
  return p.modelPrice >= 0 ? p.modelPrice : p.modelRatio * (1 + p.completionRatio);
}

/**
 * What one request for `model` costs on the channel, for the cheapest mode: its cost ratio times the official
 * price of the model it calls upstream (after its model mapping; an unpriced upstream model counts at the
 * requested model's price, an unpriced requested model at 1).
 */
export function channelCost(prices: PriceCache, ch: ChannelEntry, model: string): number {
  const upstream = ch.modelMapping[model];
  const price =
    (typeof upstream === 'string' && upstream ? listPrice(prices, upstream) : null) ??
    listPrice(prices, model) ??
    1;
  return costRatio(ch) * price;
}
