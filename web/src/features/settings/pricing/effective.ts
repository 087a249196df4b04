import type { OptionMap } from '../api.ts';
import { PRICE_KEYS, type PriceRow, rowsFromOptions } from './priceMath.ts';

/**
 * What the relay charges for a model: each of the options over the built-in tables, field by field (as the
 * relay's price cache merges them). `builtin`: no option names the model; `saved`: only the options do;
 * `override`: the options replace (part of) a built-in price.
 */
export type PriceSource = 'builtin' | 'saved' | 'override';
export interface EffectiveRow extends PriceRow {
  source: PriceSource;
}

const FIELDS = Object.keys(PRICE_KEYS) as Array<keyof typeof PRICE_KEYS>;

/** The built-in tables (option key -> model -> number) as editor rows. */
export function builtInRows(tables: Record<string, Record<string, number>> | undefined): PriceRow[] {
  const asOptions: OptionMap = {};
  for (const key of Object.values(PRICE_KEYS)) asOptions[key] = JSON.stringify(tables?.[key] ?? {});
  return rowsFromOptions(asOptions);
}

export function effectiveRows(saved: PriceRow[], builtIn: PriceRow[]): EffectiveRow[] {
  const own = new Map(saved.map((r) => [r.name, r]));
  const base = new Map(builtIn.map((r) => [r.name, r]));
  const names = [...new Set([...own.keys(), ...base.keys()])].sort();
  return names.map((name) => {
    const s = own.get(name);
    const b = base.get(name);
    const row: EffectiveRow = { name, source: s ? (b ? 'override' : 'saved') : 'builtin' };
    for (const f of FIELDS) {
      const v = s?.[f] ?? b?.[f];
      if (v !== undefined) row[f] = v;
    }
    return row;
  });
}

/**
 * The part of an edited row the options must hold: the fields that differ from the built-in price (all of them
 * when there is none); null when the row is the built-in price as it is.
 */
export function overrideOf(row: PriceRow, builtIn: PriceRow | undefined): PriceRow | null {
  if (!builtIn) return { name: row.name, ...pick(row) };
  const out: PriceRow = { name: row.name };
  let differs = false;
  for (const f of FIELDS) {
    if (row[f] !== undefined && row[f] !== builtIn[f]) {
      out[f] = row[f];
      differs = true;
    }
  }
  return differs ? out : null;
}

function pick(row: PriceRow): Omit<PriceRow, 'name'> {
  const out: Omit<PriceRow, 'name'> = {};
  for (const f of FIELDS) if (row[f] !== undefined) out[f] = row[f];
  return out;
}

/** Priced as the relay sees it: a per-call price or a model ratio, saved or built in. */
export const isPriced = (r: PriceRow) => r.price !== undefined || r.ratio !== undefined;
