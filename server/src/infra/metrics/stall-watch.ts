/** How often the loop is sampled: a stall shorter than this is not told from a busy loop. */
const TICK_MS = 10;

/**
 * How late the event loop ran a 10 ms timer at worst: time no request is served (a long synchronous query, a
 * flush, a hash). A timer of its own rather than perf_hooks' monitorEventLoopDelay: that histogram drops the
 * first delay after a reset, so a stall that began within 10 ms of a reset went unseen.
 */
export class StallWatch {
  private recent = 0;
  private worst = 0;
  private due = performance.now() + TICK_MS;
  private readonly timer = setInterval(() => {
    const now = performance.now();
    this.note(Math.max(0, now - this.due) / 1000);
    this.due = now + TICK_MS;
  }, TICK_MS);

  constructor() {
    this.timer.unref();
  }

  /** The longest stall in seconds since the previous take, counting one still under way; starts a new period. */
  take(): number {
    this.note(this.current());
    const max = this.recent;
    this.recent = 0;
    return max;
  }

  /** The longest stall in seconds since this watch started. */
  longest(): number {
    this.note(this.current());
    return this.worst;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** How late the timer is now (0 until it is due). */
  private current(): number {
    return Math.max(0, performance.now() - this.due) / 1000;
  }

  private note(late: number) {
    if (late > this.recent) this.recent = late;
    if (late > this.worst) this.worst = late;
  }
}
