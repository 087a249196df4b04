import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../infra/worker-thread.ts';
import type { HashAnswer, HashJob } from './protocol.ts';

/** The thread ends after this long without a job; the next login starts it again (a few milliseconds). */
const IDLE_MS = 30_000;

type Job = { op: 'hash'; plain: string; cost: number } | { op: 'verify'; plain: string; hash: string };

/**
 * The main thread's end of one password hashing thread (entry.ts), started on the first job and ended when idle,
 * so an instance nobody logs into holds no thread. Jobs are answered in order; the thread keeps the process alive
 * only while a job is unanswered. If the thread fails, its jobs are refused and the next job starts a new one.
 */
class HashThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<
    number,
    { resolve(v: string | boolean): void; reject(e: Error): void }
  >();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;

  /** Jobs posted and not yet answered. */
  get pending(): number {
    return this.waiting.size;
  }

  run(job: Job): Promise<string | boolean> {
    const worker = this.worker ?? this.start();
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...job } as HashJob);
    });
  }

  /** Ends the thread now (its unanswered jobs are refused); the next job starts a new one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    clearTimeout(this.idle);
    await worker.terminate();
  }

  private start(): Worker {
    const worker = startWorker(import.meta.url, 'password-worker', './entry.ts');
    this.worker = worker;
    worker.unref();
    worker.on('message', (a: HashAnswer) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.settle(a.id);
      if (a.ok) w.resolve(a.value);
      else w.reject(new Error(a.message));
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      clearTimeout(this.idle);
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the password hashing thread exited (code ${code})`)));
    return worker;
  }

  private settle(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size > 0 || !this.worker) return;
    this.worker.unref();
    const worker = this.worker;
    this.idle = setTimeout(() => {
      if (this.worker !== worker || this.waiting.size > 0) return;
      this.worker = undefined;
      void worker.terminate();
    }, IDLE_MS);
    this.idle.unref();
  }
}

/**
 * As many hashing threads as libuv's pool had (4), but leaving one core to the event loop: one on a 2-core
 * machine. A job goes to the thread with the fewest unanswered ones.
 */
class HashThreads {
  private readonly threads = Array.from(
    { length: Math.min(4, Math.max(1, availableParallelism() - 1)) },
    () => new HashThread(),
  );

  run(job: Job): Promise<string | boolean> {
    let best = this.threads[0];
    for (const t of this.threads) if (t.pending < best.pending) best = t;
    return best.run(job);
  }

  /** Ends every thread now; the next job starts one again. */
  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}

export const hashThread = new HashThreads();
