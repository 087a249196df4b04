import type { AppContext } from '../../context.ts';
import { dropLogPartitionsBefore } from '../../db/log-partitions/index.ts';
import { deleteFromSqliteLog } from '../../ledger/worker/shared-thread.ts';

/**
 * Drops the parts of the usage log wholly older than `before` (unix seconds), without touching their rows one by
 * one: SQLite's closed chunks (on the writer thread, db/log-chunks/), PostgreSQL's and MySQL's weeks
 * (db/log-partitions/). Returns how many rows went; the older rows of the part that is left are the caller's.
 */
export function dropLogPartsBefore(ctx: AppContext, before: number): Promise<number> {
  return ctx.logDb.sqlite
    ? deleteFromSqliteLog(ctx, { kind: 'drop-chunks', before })
    : dropLogPartitionsBefore(ctx.logDb, before);
}
