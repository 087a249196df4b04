import { Gauge, type Registry } from 'prom-client';

/** How often the loop is sampled: a stall shorter than this is not told from a busy loop. */
const TICK_MS = 10;

/**
 * The longest event-loop stall: how late the loop ran a 10 ms timer at worst, over the time since the previous
 * scrape and since start. A stall is time no request is served: a long synchronous query, a flush, a hash.
 * Measured with a timer of its own rather than perf_hooks' monitorEventLoopDelay: that histogram drops the
 * first delay after a reset, so a stall that began within 10 ms of a scrape went unseen. Returns the stop.
 */
export function watchLoopStalls(registry: Registry): () => void {
  let recent = 0;
  let worst = 0;
  let due = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - due) / 1000;
    if (late > recent) recent = late;
    if (late > worst) worst = late;
    due = now + TICK_MS;
  }, TICK_MS);
  timer.unref();
  /** Includes the stall still under way: the scrape itself runs once the loop is free. */
  const current = () => Math.max(0, performance.now() - due) / 1000;
  const registers = [registry];
  new Gauge({
    name: 'modelgate_event_loop_stall_max_seconds',
    help: 'Longest event-loop stall since the previous scrape (how late a 10 ms timer ran).',
    registers,
    collect() {
      const max = Math.max(recent, current());
      if (max > worst) worst = max;
      recent = 0;
      this.set(max);
    },
  });
  new Gauge({
    name: 'modelgate_event_loop_stall_max_since_start_seconds',
    help: 'Longest event-loop stall since the process started, as of the latest scrape.',
    registers,
    collect() {
      this.set(Math.max(worst, recent, current()));
    },
  });
  return () => clearInterval(timer);
}
