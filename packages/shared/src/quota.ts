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

/**
 * A US$ amount for people: two decimals from $1 up; below $1 up to four significant digits (at least two
 * decimals, trailing zeros dropped past them), so a real amount never reads $0.00: 0.000016 -> $0.000016,
 * 0.0275 -> $0.0275, 0.123456 -> $0.1235, 0.1 -> $0.10. A minus sign goes before the `$`.
 */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value) || value === 0) return '$0.00';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  const decimals = Math.min(20, Math.max(2, 1 - Math.floor(Math.log10(abs))));
  let text = abs.toFixed(decimals + 2).replace(/0+$/, '');
  const dot = text.indexOf('.');
  if (text.length - dot - 1 < 2) text = abs.toFixed(2);
  return `${sign}$${text}`;
}

/** Renders quota for people: `$0.0275` when currency display is on (see formatUsd), else abbreviated units. */
export function renderQuota(quota: number, opts: { quotaPerUnit: number; displayInCurrency: boolean }) {
  if (opts.displayInCurrency) return formatUsd(quota / (opts.quotaPerUnit || DEFAULT_QUOTA_PER_UNIT));
  return abbreviateQuota(quota);
}

/** Ratio tag colour. */
export function ratioColor(ratio: number): 'red' | 'orange' | 'blue' | 'green' {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}
