import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { watchLoopStalls } from './loop-stall.ts';
import { RelayMetrics } from './relay-metrics.ts';
import { ResponseCacheMetrics } from './response-cache-metrics.ts';

const WRITE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The gateway's Prometheus metrics, one registry per app context: relay traffic (`relay`), the ledger writer,
 * the relay's caches, channel auto-disables, and Node's default process metrics. Made only when /metrics is
 * enabled; every hook is reached through `ctx.metrics?.`, so with metrics off nothing is counted.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly relay: RelayMetrics;
  readonly responseCache: ResponseCacheMetrics;
  private readonly queues: Array<() => number> = [];
  private readonly stopStallWatch: () => void;
  private readonly flushSeconds: Histogram;
  private readonly flushErrors: Counter;
  private readonly reloadSeconds: Histogram<'cache'>;
  private readonly reloadErrors: Counter<'cache'>;
  private readonly autoDisabled: Counter<'channel' | 'scope'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.relay = new RelayMetrics(this.registry);
    this.responseCache = new ResponseCacheMetrics(this.registry);
    this.stopStallWatch = watchLoopStalls(this.registry);
    const queues = this.queues;
    new Gauge({
      name: 'modelgate_ledger_queue_length',
      help: 'Settled charges waiting for the ledger writer.',
      registers,
      collect() {
        let n = 0;
        for (const length of queues) n += length();
        this.set(n);
      },
    });
    this.flushSeconds = new Histogram({
      name: 'modelgate_ledger_flush_seconds',
      help: 'Time one ledger flush took to write its batch (balances, counters and usage logs).',
      buckets: WRITE_BUCKETS,
      registers,
    });
    this.flushErrors = new Counter({
      name: 'modelgate_ledger_flush_errors_total',
      help: 'Ledger flushes that failed (their batch is kept and written again).',
      registers,
    });
    this.reloadSeconds = new Histogram({
      name: 'modelgate_cache_reload_seconds',
      help: "Time a full reload of one of the relay's caches took.",
      labelNames: ['cache'],
      buckets: WRITE_BUCKETS,
      registers,
    });
    this.reloadErrors = new Counter({
      name: 'modelgate_cache_reload_errors_total',
      help: "Reloads of one of the relay's caches that failed (the cache keeps its previous content).",
      labelNames: ['cache'],
      registers,
    });
    this.autoDisabled = new Counter({
      name: 'modelgate_channel_auto_disabled_total',
      help: 'Channels (scope=channel) and keys of multi-key channels (scope=key) disabled automatically.',
      labelNames: ['channel', 'scope'],
      registers,
    });
  }

  /** Stops the timer the stall measure runs on (the context's close). */
  stop(): void {
    this.stopStallWatch();
  }

  /** Reports a ledger writer's queue length at each scrape. */
  watchLedgerQueue(length: () => number): void {
    this.queues.push(length);
  }

  ledgerFlushed(ms: number, ok: boolean): void {
    this.flushSeconds.observe(ms / 1000);
    if (!ok) this.flushErrors.inc();
  }

  cacheReloaded(cache: 'channels' | 'prices', ms: number, ok: boolean): void {
    if (ok) this.reloadSeconds.observe({ cache }, ms / 1000);
    else this.reloadErrors.inc({ cache });
  }

  channelAutoDisabled(channel: number, scope: 'channel' | 'key'): void {
    this.autoDisabled.inc({ channel: String(channel), scope });
  }
}
