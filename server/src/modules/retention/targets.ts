import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { deleteFromSqliteLog } from '../../ledger/worker/shared-thread.ts';
import type { PurgeSource } from './purge.ts';

const ids = (rows: Array<{ id: number | string }>) => rows.map((r) => Number(r.id));

/**
 * Usage log rows written before `cutoff` (unix seconds), through the (created_at, id) index. On SQLite the
 * chunks wholly before it are dropped first (in runRetention); these are what is left, deleted where the log
 * is written (the writer thread's connection).
 */
export function expiredLogs(ctx: AppContext, cutoff: number): PurgeSource {
  const logDb = ctx.logDb;
  return {
    nextIds: async (limit) =>
      ids(
        await logDb.db
          .selectFrom('logs')
          .select('id')
          .where('created_at', '<', cutoff)
          .orderBy('created_at')
          .orderBy('id')
          .limit(limit)
          .execute(),
      ),
    remove: async (batch) =>
      logDb.sqlite
        ? deleteFromSqliteLog(ctx, { kind: 'delete-ids', ids: batch })
        : logDb.db.deleteFrom('logs').where('id', 'in', batch).execute(),
  };
}

/**
 * Tasks that finished before `cutoff`, in the table's own time unit (Midjourney rows keep milliseconds, the
 * other tasks seconds). A task finishes after it is submitted, so the submit-time index narrows the scan;
 * unfinished tasks (finish_time 0) are kept whatever their age: they may still be polled or refunded.
 */
export function finishedTasks(db: Db, table: 'midjourneys' | 'tasks', cutoff: number): PurgeSource {
  return {
    nextIds: async (limit) =>
      ids(
        await db.db
          .selectFrom(table)
          .select('id')
          .where('submit_time', '<', cutoff)
          .where('finish_time', '>', 0)
          .where('finish_time', '<', cutoff)
          .orderBy('submit_time')
          .limit(limit)
          .execute(),
      ),
    remove: (batch) => db.db.deleteFrom(table).where('id', 'in', batch).execute(),
  };
}

/**
 * Audit log entries written before `cutoff`, oldest first. Only the head of the chain goes, so what is kept
 * still verifies: its first row is the anchor (modules/audit/verify.ts).
 */
export function expiredAudit(db: Db, cutoff: number): PurgeSource {
  return {
    nextIds: async (limit) => {
      const rows = await db.db
        .selectFrom('audit_logs')
        .select('seq')
        .where('created_at', '<', cutoff)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((r) => Number(r.seq));
    },
    remove: (batch) => db.db.deleteFrom('audit_logs').where('seq', 'in', batch).execute(),
  };
}
