import type { Kysely } from 'kysely';
import type { Database, Db, DialectName } from '../../db/index.ts';
import type { Bus } from '../../infra/bus.ts';
import { ApiError } from '../../infra/envelope.ts';
import { OPTIONS, type OptionDef, optionDef } from './registry.ts';

/**
 * Options held in memory: read on every request without a database round trip, written through to the
 * database, and reloaded when another instance announces a change on the bus.
 */
export interface OptionStore {
  get(key: string): string;
  bool(key: string): boolean;
  int(key: string): number;
  float(key: string): number;
  /** Parsed JSON, cached until the value changes; the default when the stored text does not parse. */
  json<T = unknown>(key: string): T;
  all(): Record<string, string>;
  set(key: string, value: string): Promise<void>;
  reload(): Promise<void>;
  onChange(listener: (key: string, value: string) => void): () => void;
}

/** Checks a value against its definition and returns the canonical string to store, or throws a 400. */
export function normaliseOption(key: string, raw: unknown, def: OptionDef | undefined): string {
  if (!def) throw new ApiError(`unknown option: ${key}`);
  const value =
    typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : null;
  if (value === null) throw new ApiError(`option ${key}: value must be a string`);
  const canonical = canonicalValue(key, value, def);
  const problem = def.check?.(canonical);
  if (problem) throw new ApiError(`option ${key}: ${problem}`);
  return canonical;
}

function canonicalValue(key: string, value: string, def: OptionDef): string {
  switch (def.type) {
    case 'bool':
      if (value !== 'true' && value !== 'false') throw new ApiError(`option ${key}: expected true or false`);
      return value;
    case 'int': {
      const n = Number(value.trim());
      if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
        throw new ApiError(`option ${key}: expected an integer`);
      return String(n);
    }
    case 'float':
      if (value.trim() === '' || !Number.isFinite(Number(value)))
        throw new ApiError(`option ${key}: expected a number`);
      return String(Number(value));
    case 'json':
      try {
        JSON.parse(value);
      } catch {
        throw new ApiError(`option ${key}: not valid JSON`);
      }
      return value;
    default:
      return value;
  }
}

/** Inserts or replaces one option row (in a transaction when `db` is one); the store's caches are the caller's. */
export async function writeOption(
  db: Kysely<Database>,
  dialect: DialectName,
  key: string,
  value: string,
): Promise<void> {
  if (dialect === 'mysql')
    await db.insertInto('options').values({ key, value }).onDuplicateKeyUpdate({ value }).execute();
  else
    await db
      .insertInto('options')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
}

export async function createOptionStore(handle: Db, bus: Bus): Promise<OptionStore> {
  let values = new Map<string, string>();
  const parsed = new Map<string, unknown>();
  // Typed reads are on the relay's hot path (several per request): each is parsed once per value.
  const bools = new Map<string, boolean>();
  const ints = new Map<string, number>();
  const floats = new Map<string, number>();
  const forget = (key?: string) => {
    for (const m of [parsed, bools, ints, floats]) {
      if (key === undefined) m.clear();
      else m.delete(key);
    }
  };
  const listeners = new Set<(key: string, value: string) => void>();

  /**
   * Local writes by sequence: a reload whose SELECT may have read the table before one of them keeps the value
   * written here (a reload started for an earlier change must not put back the value this instance has just
   * replaced: the option would be out of force until the next reload).
   */
  let writes = 0;
  const writtenAt = new Map<string, number>();
  const loadOnce = async () => {
    const startedAt = writes;
    const rows = await handle.db.selectFrom('options').select(['key', 'value']).execute();
    const next = new Map<string, string>();
    for (const r of rows) next.set(r.key, r.value ?? '');
    for (const [key, at] of writtenAt) if (at > startedAt) next.set(key, values.get(key) ?? '');
    const changed: string[] = [];
    for (const key of new Set([...values.keys(), ...next.keys()]))
      if (values.get(key) !== next.get(key)) changed.push(key);
    values = next;
    forget();
    for (const key of changed) for (const l of listeners) l(key, store.get(key));
  };
  /** Reloads one after another, so an older snapshot never lands after a newer one. */
  let loading: Promise<void> = Promise.resolve();
  const load = () => {
    const run = loading.then(loadOnce);
    loading = run.catch(() => {});
    return run;
  };
  /** True while this store announces its own change, so it does not reload what it has just written. */
  let announcing = false;

  const store: OptionStore = {
    get(key) {
      return values.get(key) ?? optionDef(key)?.default ?? '';
    },
    bool(key) {
      let v = bools.get(key);
      if (v === undefined) {
        v = store.get(key) === 'true';
        bools.set(key, v);
      }
      return v;
    },
    int(key) {
      let v = ints.get(key);
      if (v === undefined) {
        const n = Number.parseInt(store.get(key), 10);
        v = Number.isFinite(n) ? n : Number.parseInt(optionDef(key)?.default ?? '0', 10) || 0;
        ints.set(key, v);
      }
      return v;
    },
    float(key) {
      let v = floats.get(key);
      if (v === undefined) {
        const n = Number(store.get(key));
        v = Number.isFinite(n) ? n : Number(optionDef(key)?.default ?? 0) || 0;
        floats.set(key, v);
      }
      return v;
    },
    json<T>(key: string): T {
      if (parsed.has(key)) return parsed.get(key) as T;
      let v: unknown;
      try {
        v = JSON.parse(store.get(key));
      } catch {
        v = JSON.parse(optionDef(key)?.default || 'null');
      }
      parsed.set(key, v);
      return v as T;
    },
    all() {
      const out: Record<string, string> = {};
      for (const key of Object.keys(OPTIONS)) out[key] = store.get(key);
      return out;
    },
    async set(key, value) {
      const canonical = normaliseOption(key, value, optionDef(key));
      await writeOption(handle.db, handle.dialect, key, canonical);
      writtenAt.set(key, ++writes);
      values.set(key, canonical);
      forget(key);
      for (const l of listeners) l(key, canonical);
      // In force here already; other instances reload when they hear of it.
      // (`publish` runs this process's subscribers before it returns: the flag covers exactly those.)
      announcing = true;
      let published: Promise<void>;
      try {
        published = bus.publish('options', key);
      } finally {
        announcing = false;
      }
      await published;
    },
    reload: load,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  await load();
  bus.subscribe('options', () => {
    if (announcing) return;
    return load().catch(() => {});
  });
  return store;
}
