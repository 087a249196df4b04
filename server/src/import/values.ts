/** Reading source values the same way whatever engine and driver returned them. */

/** An integer column; undefined when the value is not an exactly representable integer. */
export function exactInt(v: unknown): number | undefined {
  if (v === null || v === undefined || v === '') return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = typeof v === 'bigint' ? Number(v) : Number(v);
  if (!Number.isFinite(n)) return undefined;
  const t = Math.trunc(n);
  return Number.isSafeInteger(t) && (typeof v !== 'bigint' || BigInt(t) === v) ? t : undefined;
}

/** An integer column where an odd value may fall back (counters, times). */
export const int = (v: unknown, fallback = 0): number => exactInt(v) ?? fallback;

export function num(v: unknown, fallback = 0): number {
  const n = Number(v);
  return v === null || v === undefined || !Number.isFinite(n) ? fallback : n;
}

export function str(v: unknown, fallback = ''): string {
  if (v === null || v === undefined) return fallback;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  if (v instanceof Date) return v.toISOString();
  // MySQL JSON columns arrive parsed.
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** GORM booleans: 0/1 on SQLite and MySQL, true/false on PostgreSQL. */
export function flag(v: unknown): 0 | 1 {
  if (Buffer.isBuffer(v)) return v[0] ? 1 : 0;
  return v === true || v === 1 || v === '1' || v === 't' || v === 'true' ? 1 : 0;
}

/** gorm.DeletedAt and other datetimes (Date from the drivers, or SQLite's text) as Unix seconds; null when unset. */
export function unixSeconds(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : Math.floor(v.getTime() / 1000);
  if (typeof v === 'number') return v > 1e12 ? Math.floor(v / 1000) : Math.floor(v);
  const text = str(v).trim();
  if (/^\d+$/.test(text)) return unixSeconds(Number(text));
  // SQLite keeps GORM times as "2024-05-01 10:00:00.123456+08:00".
  const ms = Date.parse(text.replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** Text cut to a column's width (in characters). */
export const fit = (v: unknown, width: number, fallback = ''): string => str(v, fallback).slice(0, width);

export function jsonObject(v: unknown): Record<string, unknown> | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v) && !(v instanceof Date))
    return v as Record<string, unknown>;
  const text = str(v).trim();
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
