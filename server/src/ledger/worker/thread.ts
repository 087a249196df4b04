import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../infra/worker-thread.ts';
import type { BatchRows } from '../batch-commit.ts';
import type { FromWriter, ToWriter, WriterData } from './protocol.ts';

/** The worker's entry: `ledger-worker.js` beside the bundle in production, `entry.ts` through tsx otherwise. */
const start = (data: WriterData): Worker => startWorker(import.meta.url, 'ledger-worker', './entry.ts', data);

/**
 * The main thread's end of the SQLite writer thread (worker/entry.ts): posts a flush's rows, resolves when they
 * are committed, rejects with the database's message when they are not (nothing of the batch was written). The
 * worker keeps the process alive only while a message is unanswered.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(): void; reject(err: Error): void }>();
  private nextId = 1;
  private dead?: Error;

  constructor(data: WriterData) {
    this.worker = start(data);
    this.worker.unref();
    this.worker.on('message', (msg: FromWriter) => {
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.settle(msg.id);
      if (msg.ok) w.resolve();
      else w.reject(new Error(msg.message));
    });
    const fail = (err: Error) => {
      this.dead = err;
      for (const [id, w] of this.waiting) {
        this.settle(id);
        w.reject(err);
      }
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the ledger writer thread exited (code ${code})`)));
  }

  /** False once the thread has failed or exited: the caller writes on its own connection instead. */
  get alive(): boolean {
    return !this.dead;
  }

  commit(path: string, rows: BatchRows): Promise<void> {
    return this.send({ id: this.nextId++, path, rows });
  }

  /** Closes the thread's connections (the last checkpoint is theirs) and ends it. */
  async close(): Promise<void> {
    if (this.dead) return;
    await this.send({ id: this.nextId++, close: true }).catch(() => {});
    await this.worker.terminate();
  }

  private send(msg: ToWriter): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<void>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(msg.id, { resolve, reject });
      this.worker.postMessage(msg);
    });
  }

  private settle(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
  }
}
