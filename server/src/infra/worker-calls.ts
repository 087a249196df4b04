import type { Worker } from 'node:worker_threads';

/** A worker's answer to one call: it names the call by id, with a value, or the error's message. */
export type WorkerAnswer<V> =
  | { id: number; ok: true; value?: V }
  | { id: number; ok: false; message: string };

/**
 * Calls into a worker thread that answers each posted message once (`WorkerAnswer`): a call resolves with the
 * answer's value or rejects with its message. The worker keeps the process alive only while a call is unanswered;
 * if it fails or exits, the calls waiting are refused and so is every later one (`dead`). `onIdle` runs each time
 * the last unanswered call is answered.
 */
export class WorkerCalls<V = void> {
  private readonly waiting = new Map<number, { resolve(v: V): void; reject(e: Error): void }>();
  private nextId = 1;
  dead: Error | undefined;

  constructor(
    readonly worker: Worker,
    name: string,
    private readonly onIdle?: () => void,
  ) {
    worker.unref();
    worker.on('message', (a: WorkerAnswer<V>) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.settle(a.id);
      if (a.ok) w.resolve(a.value as V);
      else w.reject(new Error(a.message));
    });
    const fail = (err: Error) => {
      this.dead ??= err;
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the ${name} exited (code ${code})`)));
  }

  /** Calls posted and not yet answered. */
  get pending(): number {
    return this.waiting.size;
  }

  call(msg: object): Promise<V> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<V>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id });
    });
  }

  private settle(id: number): void {
    this.waiting.delete(id);
    if (this.waiting.size > 0) return;
    this.worker.unref();
    this.onIdle?.();
  }
}
