import type { OptionMap } from '../api.ts';

/**
 * The price editor's model: one row per model named in any of the four price options. A model with a
 * fixed `price` is billed per call and its ratios are ignored.
 * Conversions: input US$ per 1M tokens = 2 x model ratio; completion ratio = output price /
 * input price.
 */
export interface PriceRow {
  name: string;
  price?: number;
  ratio?: number;
  completionRatio?: number;
  cacheRatio?: number;
}

export const PRICE_KEYS = {
  price: 'ModelPrice',
  ratio: 'ModelRatio',
  completionRatio: 'CompletionRatio',
  cacheRatio: 'CacheRatio',
} as const;
type Field = keyof typeof PRICE_KEYS;

export const ratioToInputPrice = (ratio: number) => round(ratio * 2);
export const inputPriceToRatio = (price: number) => round(price / 2);
export const outputPrice = (ratio: number, completionRatio: number) => round(ratio * 2 * completionRatio);
export const completionFromPrices = (input: number, output: number) =>
  input > 0 ? round(output / input) : 0;

/** Twelve significant decimals: enough for prices, without float noise like 0.30000000000000004. */
export function round(n: number): number {
  return Number.parseFloat(n.toFixed(12));
}

function map(options: OptionMap, key: string): Record<string, number> {
  try {
    const v = JSON.parse(options[key] || '{}');
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter(([, n]) => typeof n === 'number')) as Record<
      string,
      number
    >;
  } catch {
    return {};
  }
}

export function rowsFromOptions(options: OptionMap): PriceRow[] {
  const maps = Object.fromEntries(
    Object.entries(PRICE_KEYS).map(([f, key]) => [f, map(options, key)]),
  ) as Record<Field, Record<string, number>>;
  const names = new Set<string>();
  for (const m of Object.values(maps)) for (const n of Object.keys(m)) names.add(n);
  return [...names].sort().map((name) => ({
    name,
    price: maps.price[name],
    ratio: maps.ratio[name],
    completionRatio: maps.completionRatio[name],
    cacheRatio: maps.cacheRatio[name],
  }));
}

/** The four options as JSON text for a list of rows (a fixed price drops the row's ratios). */
export function optionsFromRows(rows: PriceRow[]): Record<string, string> {
  const out: Record<Field, Record<string, number>> = {
    price: {},
    ratio: {},
    completionRatio: {},
    cacheRatio: {},
  };
  for (const row of [...rows].sort((a, b) => a.name.localeCompare(b.name))) {
    if (row.price !== undefined) {
      out.price[row.name] = row.price;
      continue;
    }
    for (const f of ['ratio', 'completionRatio', 'cacheRatio'] as const)
      if (row[f] !== undefined) out[f][row.name] = row[f] as number;
  }
  return Object.fromEntries(
    Object.entries(PRICE_KEYS).map(([f, key]) => [key, JSON.stringify(out[f as Field])]),
  );
}

/** [key, value] pairs of the price options that differ from what is saved. */
export function changedPriceOptions(rows: PriceRow[], saved: OptionMap): Array<[string, string]> {
  const next = optionsFromRows(rows);
  const savedRows = optionsFromRows(rowsFromOptions(saved));
  return Object.entries(next).filter(([key, value]) => value !== savedRows[key]);
}

/** A text field's number, or undefined when blank; NaN when it is not a number. */
export function parseNumber(text: string | undefined): number | undefined {
  const s = (text ?? '').trim();
  if (!s) return undefined;
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : Number.NaN;
}
