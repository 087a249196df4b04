import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { median, percentile } from '../stats.ts';
import { ask, type Books, buildChildren, reconciled, type Stats, stopAll } from './children.ts';
import { closedLoop, closeOpenPools, openLoop, openPool } from './load.ts';
import { makeMix } from './traffic.ts';

/**
 * `npm run bench:soak`: the mix of `bench:mix` (bench/mix/traffic.ts) held at half of the gateway's top
 * throughput for SOAK_MINUTES (30), open loop, in windows of SOAK_WINDOW_SECONDS (60). Every five minutes the
 * gateway runs what its timers would (the dashboard export, a retention pass). Each window prints p50/p99, the
 * longest event-loop stall, errors and the gateway's memory (RSS, and PSS from /proc); the end compares the
 * halves (p99 steady, memory slope over the second half) and reconciles the usage log with the balances.
 * Exit status 1 when a request failed or the books do not reconcile.
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const WINDOW = Number(process.env.SOAK_WINDOW_SECONDS ?? 60);
const BACKGROUND_EVERY_S = Number(process.env.SOAK_BACKGROUND_SECONDS ?? 300);
// SOAK_RATE=<req/s>: soak at this rate instead of half the top throughput, to compare two builds at the same load.
const FIXED_RATE = Number(process.env.SOAK_RATE ?? 0);

const start = await buildChildren(['mock-upstream', 'mix/gateway']);
const mock = await start('mock-upstream');
const gw = await start('mix/gateway', { BENCH_UPSTREAM: `http://127.0.0.1:${mock.msg.port}` });
const origin = `http://127.0.0.1:${gw.msg.port}`;
const mix = makeMix(8192);

/** The gateway's proportional set size (its share of shared pages), from /proc; 0 where there is none. */
function pssMb(pid: number | undefined): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

// Warm up, then find the top throughput at 64 connections (the median of three short runs).
await closedLoop(origin, mix, 16, 10);
const tops: number[] = [];
for (let i = 0; i < 3; i++) {
  const r = await closedLoop(origin, mix, 64, 5);
  tops.push(r.requests / r.seconds);
}
const rate = FIXED_RATE > 0 ? FIXED_RATE : Math.max(1, Math.round(median(tops) / 2));
console.log(
  `top ${median(tops).toFixed(0)} req/s at 64 connections; soaking at ${rate} req/s for ${MINUTES} min on Node ${process.versions.node} (load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})`,
);
await ask<Stats>(gw.child, 'stats'); // resets the stall monitor

interface Window {
  minute: number;
  p50: number;
  p99: number;
  stallMs: number;
  errors: number;
  requests: number;
  rssMb: number;
  pssMb: number;
  heapMb: number;
  externalMb: number;
}
const windows: Window[] = [];
const began = performance.now();
let nextBackground = BACKGROUND_EVERY_S;
let backgroundRuns = 0;
console.log(
  'minute  requests  p50 ms  p99 ms  longest stall ms  errors  RSS MB  PSS MB  heap MB  external MB',
);
while ((performance.now() - began) / 60_000 < MINUTES) {
  const elapsed = (performance.now() - began) / 1000;
  // What the timers start every five minutes, run during the window's load as it would in production.
  let background: Promise<unknown> | undefined;
  if (elapsed >= nextBackground) {
    nextBackground += BACKGROUND_EVERY_S;
    backgroundRuns++;
    background = ask(gw.child, 'background');
  }
  await openPool(origin, mix);
  const r = await openLoop(origin, mix, rate, WINDOW);
  await background;
  const s = await ask<Stats>(gw.child, 'stats');
  const w: Window = {
    minute: (performance.now() - began) / 60_000,
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    stallMs: s.stallMs ?? 0,
    errors: r.errors,
    requests: r.requests,
    rssMb: s.rssMb,
    pssMb: pssMb(gw.child.pid),
    heapMb: s.heapMb ?? 0,
    externalMb: s.externalMb ?? 0,
  };
  windows.push(w);
  console.log(
    [
      w.minute.toFixed(1).padStart(6),
      String(w.requests).padStart(8),
      w.p50.toFixed(2).padStart(6),
      w.p99.toFixed(2).padStart(6),
      w.stallMs.toFixed(1).padStart(16),
      String(w.errors).padStart(6),
      w.rssMb.toFixed(0).padStart(6),
      w.pssMb.toFixed(0).padStart(6),
      w.heapMb.toFixed(0).padStart(7),
      w.externalMb.toFixed(0).padStart(11),
    ].join('  '),
  );
}
const books = await ask<Books>(gw.child, 'reconcile');
await closeOpenPools();
await stopAll(gw.child, [mock.child]);

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const num = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0);
  const den = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  return den ? num / den : 0;
}
const half = windows.slice(Math.floor(windows.length / 2));
const first = windows.slice(0, Math.floor(windows.length / 2));
const memory = (w: Window) => w.pssMb || w.rssMb;
const errors = windows.reduce((n, w) => n + w.errors, 0);
const last = windows.at(-1);
console.log('');
console.log(
  `books: ${books.rows} log rows written; usage log quota ${books.logged}, users' used quota ${books.used}, tokens' ${books.tokenUsed}: ${reconciled(books) ? 'reconciled' : 'MISMATCH'}`,
);
console.log(`background runs (export + retention): ${backgroundRuns}`);
console.log('targets:');
console.log(
  `  memory at the end ${last ? memory(last).toFixed(0) : '?'} MB ${last?.pssMb ? 'PSS' : 'RSS'} (<= 150); slope over the second half ${slope(
    half.map((w) => w.minute),
    half.map(memory),
  ).toFixed(2)} MB/min (< 1)`,
);
console.log(
  `  p99: median ${median(first.map((w) => w.p99)).toFixed(2)} ms in the first half, ${median(half.map((w) => w.p99)).toFixed(2)} ms in the second`,
);
console.log(
  `  longest event-loop stall ${Math.max(0, ...windows.map((w) => w.stallMs)).toFixed(1)} ms (<= 20)`,
);
console.log(`  errors ${errors} of ${windows.reduce((n, w) => n + w.requests, 0)} requests (0)`);
console.log(
  `load average after: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
process.exit(errors === 0 && reconciled(books) ? 0 : 1);
