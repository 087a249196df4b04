import { parentPort, workerData } from 'node:worker_threads';
import { type Db, openDatabase } from '../../db/index.ts';
import { onSqlite } from '../../db/log-chunks/connection.ts';
import { runLogJob } from '../../db/log-chunks/jobs.ts';
import { lowerThisThreadPriority } from '../../infra/os/thread-priority.ts';
import { runExport } from '../../modules/data/rebuild.ts';
import { THREAD_SLICES } from '../../modules/data/slices.ts';
import { commitBatch } from '../batch-commit.ts';
import type { ExportCall, FromWriter, ToWriter, WriterData } from './protocol.ts';

/*
 * The SQLite writer thread: its own better-sqlite3 connection per database file, on which it runs the ledger
 * writer's transactions, the usage log's deletions, the dashboard export and the WAL checkpoints, so none of
 * them stalls the main thread's event loop. Commits and deletions are handled one at a time, in order; the
 * export runs beside them, in slices, its statements taking turns with theirs on the connection.
 */
const port = parentPort;
if (!port) throw new Error('the ledger writer thread runs as a worker');
// A flush can wait a few milliseconds; a request should not wait for a flush where both share a core.
lowerThisThreadPriority();
const { cacheMb, logChunkRows, checkpointEveryMs, checkpointAfterRows } = workerData as WriterData;
const handles = new Map<string, Promise<Db>>();

async function open(path: string): Promise<Db> {
  const db = await openDatabase('', path, cacheMb);
  db.logChunkRows = logChunkRows;
  // Checkpoints are run below, after the commit has been answered, never inside a commit.
  db.sqlite?.pragma('wal_autocheckpoint = 0');
  return db;
}

function handle(path: string): Promise<Db> {
  let db = handles.get(path);
  if (!db) {
    db = open(path);
    db.catch(() => handles.delete(path));
    handles.set(path, db);
  }
  return db;
}

/**
 * Copies what the WAL holds into the database file, as far as readers allow; never waits for them. A checkpoint
 * writes each page once however many commits changed it, and a flush of many users' log rows changes the same
 * index pages second after second: checkpointing every few seconds instead of after every commit copies each
 * of those pages once instead of once per commit (bench/logs/row-cost.ts --checkpoint-every).
 */
async function checkpoint(): Promise<void> {
  lastCheckpoint = performance.now();
  rowsSinceCheckpoint = 0;
  // Through the connection's lock, as the builder's statements take it: never inside the export's open transaction.
  for (const db of handles.values())
    await onSqlite(await db, (sqlite) => sqlite.pragma('wal_checkpoint(PASSIVE)'));
}
let lastCheckpoint = performance.now();
let rowsSinceCheckpoint = 0;

async function closeAll(): Promise<void> {
  for (const db of handles.values()) await (await db.catch(() => undefined))?.close();
  handles.clear();
}

const answer = (msg: FromWriter) => port.postMessage(msg);
/** Answers call `id` with what `work` resolves to, or with the error's message. */
async function answerWith(id: number, work: () => Promise<unknown>): Promise<boolean> {
  try {
    answer({ id, ok: true, value: await work() });
    return true;
  } catch (err) {
    answer({ id, ok: false, message: err instanceof Error ? err.message : String(err) });
    return false;
  }
}
let queue = Promise.resolve();
const exports = new Set<Promise<unknown>>();

const exportQuotaData = (id: number, call: ExportCall) =>
  answerWith(id, async () => {
    const dbs = { db: await handle(call.dbPath), logDb: await handle(call.logPath) };
    return runExport(dbs, call.now, THREAD_SLICES);
  });

let committedSinceTick = false;
const timer = setInterval(() => {
  if (!committedSinceTick) queue = queue.then(() => checkpoint().catch(() => {}));
  committedSinceTick = false;
}, checkpointEveryMs);
const checkpointDue = () =>
  performance.now() - lastCheckpoint >= checkpointEveryMs || rowsSinceCheckpoint >= checkpointAfterRows;

port.on('message', (msg: ToWriter) => {
  if ('export' in msg) {
    const run = exportQuotaData(msg.id, msg.export);
    exports.add(run);
    void run.finally(() => exports.delete(run));
    return;
  }
  queue = queue.then(async () => {
    if ('close' in msg) {
      clearInterval(timer);
      await Promise.allSettled(exports);
      await closeAll().catch(() => {});
      answer({ id: msg.id, ok: true });
      port.close();
      return;
    }
    if ('job' in msg) {
      await answerWith(msg.id, async () =>
        onSqlite(await handle(msg.path), (sqlite) => runLogJob(sqlite, msg.job)),
      );
      return;
    }
    if (!(await answerWith(msg.id, async () => commitBatch(await handle(msg.path), msg.rows)))) return;
    committedSinceTick = true;
    rowsSinceCheckpoint += msg.rows.logs.count;
    if (checkpointDue()) await checkpoint().catch(() => {});
  });
});
