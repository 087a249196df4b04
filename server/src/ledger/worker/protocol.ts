import type { BatchRows } from '../batch-commit.ts';

/** What the main thread posts to the SQLite writer thread. */
export type ToWriter = { id: number; path: string; rows: BatchRows } | { id: number; close: true };

/** The writer thread's answer to one message: committed (or closed), or failed with the database's message. */
export type FromWriter = { id: number; ok: true } | { id: number; ok: false; message: string };

/** What the writer thread is started with. */
export interface WriterData {
  cacheMb: number;
  /** How often the thread checkpoints the WAL when it has committed nothing (console writes grow it too). */
  checkpointEveryMs: number;
}
