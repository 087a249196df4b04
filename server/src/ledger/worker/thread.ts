import type { Worker } from 'node:worker_threads';
import { WorkerCalls } from '../../infra/worker-calls.ts';
import { startWorker } from '../../infra/worker-thread.ts';
import type { BatchRows } from '../batch-commit.ts';
import type { WriterCall, WriterData } from './protocol.ts';

/** The worker's entry: `ledger-worker.js` beside the bundle in production, `entry.ts` through tsx otherwise. */
const start = (data: WriterData): Worker => startWorker(import.meta.url, 'ledger-worker', './entry.ts', data);

/**
 * The main thread's end of the SQLite writer thread (worker/entry.ts): posts a flush's rows, resolves when they
 * are committed, rejects with the database's message when they are not (nothing of the batch was written). The
 * worker keeps the process alive only while a message is unanswered.
 */
export class WriterThread {
  private readonly calls: WorkerCalls;

  constructor(data: WriterData) {
    this.calls = new WorkerCalls(start(data), 'ledger writer thread');
  }

  /** False once the thread has failed or exited: the caller writes on its own connection instead. */
  get alive(): boolean {
    return !this.calls.dead;
  }

  commit(path: string, rows: BatchRows): Promise<void> {
    return this.calls.call({ path, rows } satisfies WriterCall);
  }

  /** Closes the thread's connections (the last checkpoint is theirs) and ends it. */
  async close(): Promise<void> {
    if (this.calls.dead) return;
    await this.calls.call({ close: true } satisfies WriterCall).catch(() => {});
    await this.calls.worker.terminate();
  }
}
