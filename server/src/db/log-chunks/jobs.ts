import type { Database as Sqlite } from 'better-sqlite3';
import { deleteRowIds, deleteRowsBefore, dropChunksBefore } from './delete.ts';

/**
 * The deletions of the chunked usage log, as plain data: they run on the connection that writes the log, the
 * SQLite writer thread's when there is one (ledger/worker/), so that dropping a chunk or deleting a batch of
 * rows never holds the event loop that serves requests. Each answers how many rows went.
 */
export type LogJob =
  | { kind: 'drop-chunks'; before: number }
  | { kind: 'delete-before'; before: number }
  | { kind: 'delete-ids'; ids: number[] };

export function runLogJob(sqlite: Sqlite, job: LogJob): number {
  switch (job.kind) {
    case 'drop-chunks':
      return dropChunksBefore(sqlite, job.before);
    case 'delete-before':
      return deleteRowsBefore(sqlite, job.before);
    case 'delete-ids':
      return deleteRowIds(sqlite, job.ids);
  }
}
