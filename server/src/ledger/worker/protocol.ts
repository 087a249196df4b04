import type { WorkerAnswer } from '../../infra/worker-calls.ts';
import type { BatchRows } from '../batch-commit.ts';

/** What the main thread posts to the SQLite writer thread. */
export type ToWriter = WriterCall & { id: number };
/** A flush's rows to commit to the database file at `path`, or the end of the thread. */
export type WriterCall = { path: string; rows: BatchRows } | { close: true };

/** The writer thread's answer to one message: committed (or closed), or failed with the database's message. */
export type FromWriter = WorkerAnswer<void>;

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
