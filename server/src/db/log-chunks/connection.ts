import type { Database as Sqlite } from 'better-sqlite3';
import type { Db } from '../index.ts';
import { retryWhileBusy } from '../sqlite-dialect.ts';

/**
 * Runs `work` on the handle's SQLite connection while no query of the builder is using it (a builder
 * transaction in progress is never joined), retrying on timers while another connection (the writer thread,
 * or the main thread's) holds the write lock, as the builder's own statements do. `work` must be safe to run
 * again after it failed on the lock: each of its transactions either committed or did nothing.
 */
export function onSqlite<T>(handle: Db, work: (sqlite: Sqlite) => T): Promise<T> {
  const sqlite = handle.sqlite;
  if (!sqlite) throw new Error('the usage log chunks are a SQLite layout');
  return handle.db.connection().execute(() => retryWhileBusy(() => work(sqlite)));
}
