import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import { type AuditChange, diffSnapshots, type Snapshot } from '../audit/diff.ts';
import { optionDef } from '../options/registry.ts';
import type { Desired } from './desired.ts';
import { canonicalJson, type ManagedRow, managedRow } from './rows.ts';
import { ConfigRefused } from './source.ts';

/** What applying a file does: the item-by-item difference, and the writes that make it so. */
export interface Plan {
  /** Options and channels that change, secrets redacted (also what the audit log records). */
  changes: AuditChange[];
  writes: {
    options: Array<[key: string, value: string]>;
    creates: ManagedRow[];
    updates: Array<{ id: number; set: Partial<ManagedRow>; row: ManagedRow & { id: number } }>;
    deletes: number[];
  };
}

/** Compares the file with the database read through `db` (the apply's transaction, or the plain handle). */
export async function planAgainst(db: Kysely<Database>, desired: Desired): Promise<Plan> {
  const plan: Plan = { changes: [], writes: { options: [], creates: [], updates: [], deletes: [] } };

  const stored = new Map(
    (await db.selectFrom('options').select(['key', 'value']).execute()).map((r) => [r.key, r.value ?? '']),
  );
  const before: Snapshot = new Map();
  const after: Snapshot = new Map();
  for (const [key, value] of desired.options) {
    const def = optionDef(key);
    const current = stored.get(key) ?? def?.default ?? '';
    const same = def?.type === 'json' ? canonicalJson(current) === canonicalJson(value) : current === value;
    if (same) continue;
    before.set(key, { key, value: stored.has(key) ? current : `${current} (default)` });
    after.set(key, { key, value });
    plan.writes.options.push([key, value]);
  }
  plan.changes.push(
    ...diffSnapshots('option', before, after, {
      secret: (_f, row) => optionDef(String(row.key))?.secret === true,
    }),
  );

  if (desired.channels) {
    const rows = await db.selectFrom('channels').selectAll().orderBy('id').execute();
    const byName = new Map<string, typeof rows>();
    for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    const was: Snapshot = new Map();
    const will: Snapshot = new Map();
    const ambiguous: string[] = [];
    for (const [name, want] of desired.channels) {
      const found = byName.get(name) ?? [];
      if (found.length > 1) ambiguous.push(name);
      const current = found[0];
      if (!current) {
        if (want.key === undefined)
          throw new ConfigRefused([
            {
              line: desired.channelLines.get(name) ?? 0,
              path: `channels.${name}`,
              message: 'a new channel needs a key',
            },
          ]);
        const row = { ...want, key: want.key };
        plan.writes.creates.push(row);
        will.set(name, row);
        continue;
      }
      const have = managedRow(current);
      const next: ManagedRow = { ...want, key: want.key ?? have.key };
      const set = Object.fromEntries(
        Object.entries(next).filter(([k, v]) => have[k as keyof ManagedRow] !== v),
      ) as Partial<ManagedRow>;
      if (!Object.keys(set).length) continue;
      was.set(name, have);
      will.set(name, next);
      plan.writes.updates.push({ id: Number(current.id), set, row: { ...next, id: Number(current.id) } });
    }
    if (ambiguous.length)
      throw refused(
        `the database has several channels named ${ambiguous.map((n) => `"${n}"`).join(', ')}; rename them first`,
      );
    for (const r of rows)
      if (!desired.channels.has(r.name)) {
        was.set(r.name, managedRow(r));
        plan.writes.deletes.push(Number(r.id));
      }
    plan.changes.push(...diffSnapshots('channel', was, will, { secret: (f) => f === 'key' }));
  }
  return plan;
}

const refused = (message: string) => new ConfigRefused([{ line: 0, path: 'channels', message }]);
