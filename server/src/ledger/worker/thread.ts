import type { Worker } from 'node:worker_threads';
import type { LogJob } from '../../db/log-chunks/jobs.ts';
import { WorkerCalls } from '../../infra/worker-calls.ts';
import { startWorker } from '../../infra/worker-thread.ts';
import type { ExportResult } from '../../modules/data/rebuild.ts';
import type { BatchRows } from '../batch-commit.ts';
import type { ExportCall, WriterCall, WriterData } from './protocol.ts';

/** The worker's entry: `ledger-worker.js` beside the bundle in production, `entry.ts` through tsx otherwise. */
const start = (data: WriterData): Worker => startWorker(import.meta.url, 'ledger-worker', './entry.ts', data);

/**
 * The main thread's end of the SQLite writer thread (worker/entry.ts): posts a flush's rows, resolves when they
 * are committed, rejects with the database's message when they are not (nothing of the batch was written); the
 * same for the usage log's deletions and the dashboard export. The worker keeps the process alive only while a
 * message is unanswered.
 */
export class WriterThread {
  private readonly calls: WorkerCalls<unknown>;

  constructor(data: WriterData) {
    this.calls = new WorkerCalls(start(data), 'ledger writer thread');
  }

  /** False once the thread has failed or exited: the caller writes on its own connection instead. */
  get alive(): boolean {
    return !this.calls.dead;
  }

  async commit(path: string, rows: BatchRows): Promise<void> {
    await this.calls.call({ path, rows } satisfies WriterCall);
  }

  /** Runs a deletion in the usage log of the file at `path`, between flushes; resolves with the rows deleted. */
  async logJob(path: string, job: LogJob): Promise<number> {
    return (await this.calls.call({ path, job } satisfies WriterCall)) as number;
  }

  /** Runs the dashboard export on the thread (beside its flushes, on the same connections). */
  async exportQuotaData(call: ExportCall): Promise<ExportResult> {
    return (await this.calls.call({ export: call } satisfies WriterCall)) as ExportResult;
  }

  /** Closes the thread's connections (the last checkpoint is theirs) and ends it. */
  async close(): Promise<void> {
    if (this.calls.dead) return;
    await this.calls.call({ close: true } satisfies WriterCall).catch(() => {});
    await this.calls.worker.terminate();
  }
}
