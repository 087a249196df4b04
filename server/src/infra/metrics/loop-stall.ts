import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

/**
 * The longest event-loop stall: how late the loop ran a 10 ms timer at worst (perf_hooks'
 * monitorEventLoopDelay), over the time since the previous scrape (then reset) and since start. A stall is
 * time no request is served: a long synchronous query, a flush, a hash.
 */
export function watchLoopStalls(registry: Registry): void {
  const recent = monitorEventLoopDelay({ resolution: 10 });
  recent.enable();
  let worst = 0;
  const registers = [registry];
  new Gauge({
    name: 'modelgate_event_loop_stall_max_seconds',
    help: 'Longest event-loop stall since the previous scrape (monitorEventLoopDelay max).',
    registers,
    collect() {
      const max = recent.max / 1e9;
      if (max > worst) worst = max;
      recent.reset();
      this.set(max);
    },
  });
  new Gauge({
    name: 'modelgate_event_loop_stall_max_since_start_seconds',
    help: 'Longest event-loop stall since the process started, as of the latest scrape.',
    registers,
    collect() {
      this.set(Math.max(worst, recent.max / 1e9));
    },
  });
}
