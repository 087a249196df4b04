import type { Db } from '../db/index.ts';
import { noteLiveRows } from '../db/log-chunks/rollover.ts';
import { applyDeltas, type DeltaTable } from './account-deltas.ts';
import { type SpendRow, writeSpends } from './budget/spends.ts';
import { insertLogs } from './log-insert.ts';
import { type PackedLogs, unpackLogs } from './packed-logs.ts';

const USERS: DeltaTable = {
  table: 'users',
  columns: [
    { name: 'quota', op: '-' },
    { name: 'used_quota', op: '+' },
    { name: 'request_count', op: '+' },
  ],
};
const TOKENS: DeltaTable = {
  table: 'tokens',
  columns: [
    { name: 'remain_quota', op: '-' },
    { name: 'used_quota', op: '+' },
    { name: 'accessed_time', op: '=' },
  ],
};
const CHANNELS: DeltaTable = { table: 'channels', columns: [{ name: 'used_quota', op: '+' }] };

/**
 * One flush as plain data (it may be posted to the SQLite writer thread): per account `[id, amounts...]` in
 * the column order of USERS, TOKENS and CHANNELS above, the budget spends, and the usage log rows (packed).
 */
export interface BatchRows {
  users: number[][];
  tokens: number[][];
  channels: number[][];
  spends: SpendRow[];
  logs: PackedLogs;
}

/**
 * Writes one flush to `db` in one transaction: all of it is committed or none of it. On SQLite the usage log's
 * live table is then closed as a chunk once full (db/log-chunks/), on the connection that writes it.
 */
export async function commitBatch(db: Db, rows: BatchRows): Promise<void> {
  const logs = unpackLogs(rows.logs);
  await db.db.transaction().execute(async (trx) => {
    await applyDeltas(db, trx, USERS, rows.users);
    await applyDeltas(db, trx, TOKENS, rows.tokens);
    await writeSpends(trx, rows.spends);
    await applyDeltas(db, trx, CHANNELS, rows.channels);
    await insertLogs(db, trx, logs);
  });
  // The batch is committed whatever happens here: a rollover refused now is tried again after the next commit,
  // and a chunk whose indexes were not all built gets the rest at the next start.
  if (db.sqlite && logs.length > 0) await noteLiveRows(db, logs.length).catch(() => {});
}
