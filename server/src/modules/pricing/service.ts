import type { AppContext } from '../../context.ts';
import { UNSET_MODEL_RATIO } from '../../relay/billing/charge.ts';
import { PriceCache } from '../../relay/table-cache/prices.ts';

/** One row of the public price list. */
export interface PricingRow {
  model_name: string;
  /** 0: billed per token by ratio; 1: a fixed price per call. */
  quota_type: 0 | 1;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
  /** True when no price and no ratio is configured: the relay refuses it unless self-use mode is on. */
  unpriced: boolean;
}

type NumMap = Record<string, number>;

function numberMap(ctx: AppContext, key: string): NumMap {
  const v = ctx.options.json<unknown>(key);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as NumMap) : {};
}

/**
 * Builds the rows from the enabled abilities (one row per model a channel serves), priced exactly as the
 * relay bills them (the relay's price cache: options over the built-in table).
 */
export async function buildPricingRows(ctx: AppContext, prices: PriceCache): Promise<PricingRow[]> {
  const abilities = await ctx.db.db
    .selectFrom('abilities')
    .select(['group', 'model'])
    .where('enabled', '=', 1)
    .execute();
  const groupsByModel = new Map<string, Set<string>>();
  for (const a of abilities) {
    const set = groupsByModel.get(a.model) ?? new Set<string>();
    set.add(a.group);
    groupsByModel.set(a.model, set);
  }
  return [...groupsByModel.keys()].sort().map((model): PricingRow => {
    const enable_groups = [...(groupsByModel.get(model) ?? [])].sort();
    const p = prices.model(model);
    if (p && p.modelPrice >= 0) {
      return {
        model_name: model,
        quota_type: 1,
        model_ratio: 0,
        completion_ratio: 0,
        model_price: p.modelPrice,
        enable_groups,
        unpriced: false,
      };
    }
    return {
      model_name: model,
      quota_type: 0,
      model_ratio: p ? p.modelRatio : UNSET_MODEL_RATIO,
      completion_ratio: p ? p.completionRatio : 1,
      model_price: 0,
      enable_groups,
      unpriced: !p,
    };
  });
}

/**
 * The price list kept in memory: rebuilt on the next read after prices or channels change, so a page view
 * costs no database query.
 */
export function createPricingCache(ctx: AppContext) {
  const prices = new PriceCache(ctx);
  let rows: Promise<PricingRow[]> | undefined;
  const invalidate = () => {
    rows = undefined;
  };
  ctx.options.onChange(invalidate);
  ctx.bus.subscribe('channels', invalidate);
  return {
    get(): Promise<PricingRow[]> {
      if (!rows) {
        const building = buildPricingRows(ctx, prices);
        rows = building;
        building.catch(() => {
          if (rows === building) rows = undefined;
        });
      }
      return rows;
    },
    invalidate,
  };
}

/** Groups a caller may use with their descriptions: the usable-groups option plus their own group. */
export function usableGroups(ctx: AppContext, userGroup: string | undefined): Record<string, string> {
  const configured = ctx.options.json<Record<string, string>>('UserUsableGroups') ?? {};
  const out: Record<string, string> = { ...configured };
  const own = userGroup || 'default';
  if (!(own in out)) out[own] = own;
  return out;
}

/** GroupRatio restricted to the given groups (1 where a group has no ratio). */
export function groupRatios(ctx: AppContext, groups: string[]): Record<string, number> {
  const all = numberMap(ctx, 'GroupRatio');
  const out: Record<string, number> = {};
  for (const g of groups) out[g] = typeof all[g] === 'number' ? all[g] : 1;
  return out;
}
