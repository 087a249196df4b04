/** What a model costs for a group, shown per 1M tokens or per call. */
export interface PricingRow {
  model_name: string;
  quota_type: 0 | 1;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
  unpriced?: boolean;
}

/** Prompt US$ per 1M tokens = model ratio x 2 x group ratio. */
export const promptPerMillion = (row: PricingRow, groupRatio: number) => row.model_ratio * 2 * groupRatio;
/** Completion US$ per 1M tokens = prompt price x completion ratio. */
export const completionPerMillion = (row: PricingRow, groupRatio: number) =>
  promptPerMillion(row, groupRatio) * row.completion_ratio;
/** US$ per call = price x group ratio. */
export const perCall = (row: PricingRow, groupRatio: number) => row.model_price * groupRatio;

/** At most 6 decimals, without trailing zeros. */
export const usd = (n: number) => `$${Number.parseFloat(n.toFixed(6))}`;

/** Case-insensitive: the query's characters appear in the name in order (so "4omini" finds gpt-4o-mini). */
export function fuzzyMatch(name: string, query: string): boolean {
  const q = query.trim().toLowerCase().replace(/\s+/g, '');
  if (!q) return true;
  const n = name.toLowerCase();
  if (n.includes(q)) return true;
  let i = 0;
  for (const ch of n) if (ch === q[i]) i++;
  return i === q.length;
}
