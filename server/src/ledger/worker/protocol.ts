import type { LogJob } from '../../db/log-chunks/jobs.ts';
import type { WorkerAnswer } from '../../infra/worker-calls.ts';
import type { BatchRows } from '../batch-commit.ts';

/** What the main thread posts to the SQLite writer thread. */
export type ToWriter = WriterCall & { id: number };
/**
 * A flush's rows to commit to the database file at `path`; a deletion in that file's usage log; the dashboard
 * export (modules/data/export.ts) from the log at `logPath` into the buckets at `dbPath`; or the end of the thread.
 */
export type WriterCall =
  | { path: string; rows: BatchRows }
  | { path: string; job: LogJob }
  | { export: ExportCall }
  | { close: true };

export interface ExportCall {
  dbPath: string;
  logPath: string;
  now: number;
}

/**
 * The writer thread's answer to one message: done (a deletion's row count, the export's result), or failed with
 * the database's message.
 */
export type FromWriter = WorkerAnswer<unknown>;

/** What the writer thread is started with. */
export interface WriterData {
  cacheMb: number;
  /** LOG_CHUNK_ROWS: the thread closes the usage log's live table as a chunk once it holds this many rows. */
  logChunkRows: number;
  /**
   * How often the thread checkpoints the WAL: after a commit once this long has passed since the last
   * checkpoint, and on a timer when it has committed nothing (console writes grow the WAL too).
   */
  checkpointEveryMs: number;
  /** A commit that brings the log rows written since the last checkpoint to this many checkpoints at once. */
  checkpointAfterRows: number;
}
