import { UNIT_PRICING, upstreamPrice } from '../billing/channel-cost.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import type { PriceCache } from '../table-cache/prices.ts';

/** The request the cheapest mode compares channels on: 1,000 prompt and 1,000 completion tokens, or one call. */
const NOMINAL_TOKENS = 1000;

/**
 * What one request for `model` costs on the channel, in quota, for the cheapest mode: the channel's upstream
 * price (its own price for the model when it sets one, else its cost ratio x the official price of the model it
 * calls upstream; see billing/channel-cost.ts) applied to a nominal request, so per-token and per-call prices
 * compare. An unpriced model counts at ratio 1.
 */
export function channelCost(
  prices: PriceCache,
  ch: ChannelEntry,
  model: string,
  quotaPerUnit: number,
): number {
  const p = upstreamPrice(prices, ch, model, UNIT_PRICING);
  if (p.modelPrice >= 0) return p.modelPrice * quotaPerUnit * p.groupRatio;
  return NOMINAL_TOKENS * (1 + p.completionRatio) * p.modelRatio * p.groupRatio;
}
