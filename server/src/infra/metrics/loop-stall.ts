import { Gauge, type Registry } from 'prom-client';
import { StallWatch } from './stall-watch.ts';

/** The stall gauges of /metrics: since the previous scrape, and since start. Returns the watch's stop. */
export function watchLoopStalls(registry: Registry): () => void {
  const stalls = new StallWatch();
  const registers = [registry];
  new Gauge({
    name: 'modelgate_event_loop_stall_max_seconds',
    help: 'Longest event-loop stall since the previous scrape (how late a 10 ms timer ran).',
    registers,
    collect() {
      this.set(stalls.take());
    },
  });
  new Gauge({
    name: 'modelgate_event_loop_stall_max_since_start_seconds',
    help: 'Longest event-loop stall since the process started, as of the latest scrape.',
    registers,
    collect() {
      this.set(stalls.longest());
    },
  });
  return () => stalls.stop();
}
