export const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** Abbreviates a quota number the way the console shows it without currency: 12.3k, 4.5M, 1.2B. */
export function abbreviateQuota(quota: number): string {
  const abs = Math.abs(quota);
  const fmt = (v: number, unit: string) => `${Number.parseFloat(v.toFixed(2))}${unit}`;
  if (abs >= 1e9) return fmt(quota / 1e9, 'B');
  if (abs >= 1e6) return fmt(quota / 1e6, 'M');
  if (abs >= 1e4) return fmt(quota / 1e3, 'k');
  return String(quota);
}

/** Renders quota for people: `$1.23` when currency display is on, else abbreviated units. */
export function renderQuota(
  quota: number,
  opts: { quotaPerUnit: number; displayInCurrency: boolean; digits?: number },
) {
  if (opts.displayInCurrency) {
    const value = quota / (opts.quotaPerUnit || DEFAULT_QUOTA_PER_UNIT);
    return `$${value.toFixed(opts.digits ?? 2)}`;
  }
  return abbreviateQuota(quota);
}

/** Spec 000 §9: ratio tag colour. */
export function ratioColor(ratio: number): 'red' | 'orange' | 'blue' | 'green' {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}
