import { availableParallelism } from 'node:os';
import { WorkerCalls } from '../../../infra/worker-calls.ts';
import { startWorker } from '../../../infra/worker-thread.ts';
import type { Hashing } from './protocol.ts';

/** The thread ends after this long without a job; the next login starts it again (a few milliseconds). */
const IDLE_MS = 30_000;

/**
 * The main thread's end of one password hashing thread (entry.ts), started on the first job and ended when idle,
 * so an instance nobody logs into holds no thread. If the thread fails, its jobs are refused and the next job
 * starts a new one.
 */
class HashThread {
  private calls: WorkerCalls<string | boolean> | undefined;
  private idle: NodeJS.Timeout | undefined;

  /** Jobs posted and not yet answered. */
  get pending(): number {
    return this.calls?.pending ?? 0;
  }

  run(job: Hashing): Promise<string | boolean> {
    if (!this.calls || this.calls.dead) {
      const worker = startWorker(import.meta.url, 'password-worker', './entry.ts');
      this.calls = new WorkerCalls(worker, 'password hashing thread', () => this.endWhenIdle());
    }
    clearTimeout(this.idle);
    return this.calls.call(job);
  }

  /** Ends the thread now (its unanswered jobs are refused); the next job starts a new one. */
  async stop(): Promise<void> {
    const calls = this.calls;
    this.calls = undefined;
    clearTimeout(this.idle);
    await calls?.worker.terminate();
  }

  private endWhenIdle(): void {
    const calls = this.calls;
    this.idle = setTimeout(() => {
      if (this.calls !== calls || !calls || calls.pending > 0) return;
      this.calls = undefined;
      void calls.worker.terminate();
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

  run(job: Hashing): Promise<string | boolean> {
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
