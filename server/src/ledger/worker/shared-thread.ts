import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { onSqlite } from '../../db/log-chunks/connection.ts';
import { type LogJob, runLogJob } from '../../db/log-chunks/jobs.ts';
import { WriterThread } from './thread.ts';

/**
 * The writer thread's WAL checkpoints: at most every 5 s, or sooner once 10,000 log rows were written since the
 * last (the WAL then holds a few tens of MB at most). Per commit, they cost a busy multi-user log about a fifth
 * of its rows' CPU (README, Under real traffic).
 */
const CHECKPOINT_EVERY_MS = 5000;
const CHECKPOINT_AFTER_ROWS = 10_000;

interface Holder {
  thread?: WriterThread;
  failed: boolean;
  /** The databases whose writes and checkpoints the thread has taken over. */
  handed: Set<Db>;
}

const holders = new WeakMap<AppContext, Holder>();

/**
 * The SQLite writer thread (worker/) that writes `db`: the ledger's flushes, the usage log's deletions and the
 * dashboard export. Started on first use unless SQLITE_WRITER_THREAD is off; none for PostgreSQL, MySQL or an
 * in-memory database (a second connection cannot open it), which are written on this thread. Once handed a file
 * the thread also checkpoints its WAL, so this thread's connection stops doing it at the end of its own commits;
 * if the thread dies, writing comes back here for good.
 */
export function writerThreadFor(ctx: AppContext, db: Db): WriterThread | undefined {
  if (!db.sqlite || !db.path || db.path === ':memory:' || !ctx.config.sqliteWriterThread) return;
  let holder = holders.get(ctx);
  if (!holder) {
    holder = { failed: false, handed: new Set() };
    holders.set(ctx, holder);
  }
  if (holder.failed) return;
  if (holder.thread && !holder.thread.alive) {
    ctx.log.error('the SQLite writer thread stopped; writing on the main connection');
    holder.failed = true;
    for (const handed of holder.handed) handed.sqlite?.pragma('wal_autocheckpoint = 1000');
    return;
  }
  holder.thread ??= new WriterThread({
    cacheMb: ctx.config.sqliteCacheMb,
    logChunkRows: ctx.config.logChunkRows,
    checkpointEveryMs: CHECKPOINT_EVERY_MS,
    checkpointAfterRows: CHECKPOINT_AFTER_ROWS,
  });
  if (!holder.handed.has(db)) {
    db.sqlite.pragma('wal_autocheckpoint = 0');
    holder.handed.add(db);
  }
  return holder.thread;
}

/** Ends the context's writer thread, after what it was asked has been done (the last checkpoint is its own). */
export async function closeWriterThread(ctx: AppContext): Promise<void> {
  await holders.get(ctx)?.thread?.close();
}

/**
 * Runs a deletion in the chunked SQLite usage log on the connection that writes it: the writer thread's, between
 * its flushes, or this thread's when there is no thread. Resolves with the rows deleted.
 */
export function deleteFromSqliteLog(ctx: AppContext, job: LogJob): Promise<number> {
  const thread = writerThreadFor(ctx, ctx.logDb);
  if (thread && ctx.logDb.path) return thread.logJob(ctx.logDb.path, job);
  return onSqlite(ctx.logDb, (sqlite) => runLogJob(sqlite, job));
}
