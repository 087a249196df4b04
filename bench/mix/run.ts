import { loadavg } from 'node:os';
import { median, percentile } from '../stats.ts';
import { ask, type Books, buildChildren, reconciled, type Stats, stopAll } from './children.ts';
import { closedLoop, closeOpenPools, type MixResult, openLoop, openPool } from './load.ts';
import { threadCpuNow, threadCpuSince } from './thread-cpu.ts';
import { makeMix } from './traffic.ts';

/**
 * `npm run bench:mix`: the operator's traffic of issue 29 (bench/mix/traffic.ts) against the gateway (bundled
 * and run as `npm start` runs it, SQLite defaults, 300,000 rows already in the usage log) and a bare node:http
 * proxy in the same run, interleaved pair by pair with the order alternating. Rows: requests/s and CPU per
 * request at 16 and 64 connections (closed loop); p50/p99 at half the gateway's top throughput (open loop, each
 * latency from the request's scheduled time); the longest event-loop stall of the gateway in each run; errors;
 * memory. During the first round the gateway runs the dashboard export (whose first run covers the whole
 * seeded log) and a retention pass, and each open-loop run has a burst of password logins. Loopback only,
 * bounded: MIX_WARMUP_SECONDS of warm-up (30), MIX_SECONDS per run (5), MIX_ROUNDS pairs (3); about three and a half
 * minutes after the first seeding.
 */
const SECONDS = Number(process.env.MIX_SECONDS ?? 5);
const ROUNDS = Number(process.env.MIX_ROUNDS ?? 3);
// Password logins halfway through each gateway run of the open loop; 0 measures the relay alone.
const LOGINS = Number(process.env.MIX_LOGINS ?? 4);
// The open loop's rate in requests/s; by default half of the gateway's top throughput in this run. A fixed rate
// compares two builds at the same load where the machine's speed moves between runs.
const FIXED_RATE = Number(process.env.MIX_RATE ?? 0);
// How long the gateway runs the mix before anything is measured: V8 compiles the relay's hot functions as they
// warm, and a gateway this size keeps its optimising compiler busy for tens of seconds of traffic (a fifth of its
// CPU in the first 10 s, under 3% from about 40 s on). The slices' CPU per request is printed, so what the
// warm-up cost is seen too.
const WARMUP_SECONDS = Number(process.env.MIX_WARMUP_SECONDS ?? 30);

const start = await buildChildren(['mock-upstream', 'baseline-proxy', 'mix/gateway']);

const mock = await start('mock-upstream');
const upstream = `http://127.0.0.1:${mock.msg.port}`;
const seedStart = performance.now();
const gw = await start('mix/gateway', { BENCH_UPSTREAM: upstream });
console.log(
  `gateway ready in ${((performance.now() - seedStart) / 1000).toFixed(0)} s on Node ${process.versions.node}, RSS ${gw.msg.rssMb.toFixed(0)} MB`,
);
const bare = await start('baseline-proxy', { BENCH_UPSTREAM: upstream });
const targets = {
  gateway: { child: gw.child, origin: `http://127.0.0.1:${gw.msg.port}` },
  bare: { child: bare.child, origin: `http://127.0.0.1:${bare.msg.port}` },
};
type Target = keyof typeof targets;
const mix = makeMix(8192);
const f = (n: number, d = 0) => n.toFixed(d);

/** One measured run: what the load saw, and the CPU time and longest stall of the process behind it. */
async function measure(t: Target, run: () => Promise<MixResult>) {
  const pid = targets[t].child.pid as number;
  const before = await ask<Stats>(targets[t].child, 'stats');
  const threadsBefore = threadCpuNow(pid);
  const r = await run();
  const threads = threadCpuSince(pid, threadsBefore);
  const after = await ask<Stats>(targets[t].child, 'stats');
  const perRequest = (us: number) => us / Math.max(1, r.requests);
  return {
    ...r,
    rps: r.requests / r.seconds,
    cpuUs: perRequest(after.cpuUs - before.cpuUs),
    /** CPU per request by thread (Linux only): the main thread's user and system time, the other threads'. */
    threads: threads && {
      mainUser: perRequest(threads.mainUser),
      mainSystem: perRequest(threads.mainSystem),
      others: perRequest(threads.others),
    },
    stallMs: after.stallMs ?? 0,
    rssMb: after.rssMb,
    /**
     * Usage log chunks the gateway closed during the run (their index builds counted in its CPU): chunk numbers
     * that were not there before, since retention drops old chunks and a count could go down.
     */
    closes: (after.chunks ?? []).filter((n) => !before.chunks?.includes(n)).length,
  };
}
type Measured = Awaited<ReturnType<typeof measure>>;
/** `*` after a gateway figure: a usage log chunk closed in that run, its index builds in the CPU counted. */
const closeMark = (m: Measured) => (m.closes > 0 ? '*' : '');

async function logins(origin: string): Promise<number> {
  const body = JSON.stringify({ username: 'mix0', password: 'mix-password' });
  const done = await Promise.all(
    Array.from({ length: LOGINS }, () =>
      fetch(`${origin}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
        .then(async (r) => ((await r.json()) as { success?: boolean }).success === true)
        .catch(() => false),
    ),
  );
  return done.filter((x) => !x).length;
}

console.log(
  `load average before: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const warmup: string[] = [];
for (let at = 0; at < WARMUP_SECONDS; at += 5) {
  const conns = at < WARMUP_SECONDS / 3 ? 16 : 64;
  const slice = Math.min(5, WARMUP_SECONDS - at);
  const m = await measure('gateway', () => closedLoop(targets.gateway.origin, mix, conns, slice));
  warmup.push(`${m.cpuUs.toFixed(0)}${closeMark(m)}`);
}
await closedLoop(targets.bare.origin, mix, 16, SECONDS);
await closedLoop(targets.bare.origin, mix, 64, SECONDS);
console.log(`warm-up: gateway CPU per request (us) by 5 s slice: ${warmup.join(', ')}`);
// What the gateway spends with no traffic at all (timers, the ledger's flush loop, caches' refreshes): a cost per
// second that the open loop's lower rate spreads over fewer requests.
const idleBefore = await ask<Stats>(gw.child, 'stats');
await new Promise((r) => setTimeout(r, SECONDS * 1000));
const idleAfter = await ask<Stats>(gw.child, 'stats');
console.log(`idle: gateway CPU ${f((idleAfter.cpuUs - idleBefore.cpuUs) / 1000 / SECONDS, 1)} ms per second`);
const rssAfterWarmup = (await ask<Stats>(gw.child, 'stats')).rssMb;

const closed = new Map<number, Array<{ bare: Measured; gateway: Measured }>>();
for (let round = 0; round < ROUNDS; round++) {
  for (const c of [16, 64]) {
    const order: Target[] =
      (round + (c === 64 ? 1 : 0)) % 2 === 0 ? ['bare', 'gateway'] : ['gateway', 'bare'];
    const pair = {} as { bare: Measured; gateway: Measured };
    for (const t of order) pair[t] = await measure(t, () => closedLoop(targets[t].origin, mix, c, SECONDS));
    closed.set(c, [...(closed.get(c) ?? []), pair]);
  }
}
const top = median((closed.get(64) ?? []).map((p) => p.gateway.rps));
const rate = FIXED_RATE > 0 ? FIXED_RATE : Math.max(1, Math.round(top / 2));

// What the timers start five and ten minutes after start, under the open-loop load at half of top throughput:
// the dashboard export (its first run covers the whole seeded log) and a retention pass (the oldest day).
let bgDone = false;
const background = ask<{ exportMs: number; retentionMs: number; purged: number }>(
  gw.child,
  'background',
).finally(() => {
  bgDone = true;
});
const during: Measured[] = [];
for (let i = 0; i < 12 && !bgDone; i++) {
  await openPool(targets.gateway.origin, mix);
  during.push(await measure('gateway', () => openLoop(targets.gateway.origin, mix, rate, SECONDS)));
}
const bg = await background;
const open: Array<{ bare: Measured; gateway: Measured; loginFailures: number }> = [];
for (let round = 0; round < ROUNDS; round++) {
  const order: Target[] = round % 2 === 0 ? ['bare', 'gateway'] : ['gateway', 'bare'];
  const pair = { loginFailures: 0 } as { bare: Measured; gateway: Measured; loginFailures: number };
  for (const t of order) {
    await openPool(targets[t].origin, mix);
    pair[t] = await measure(t, async () => {
      const burst =
        t === 'gateway'
          ? new Promise((r) => setTimeout(r, (SECONDS * 1000) / 2)).then(() => logins(targets.gateway.origin))
          : undefined;
      const r = await openLoop(targets[t].origin, mix, rate, SECONDS);
      pair.loginFailures += (await burst) ?? 0;
      return r;
    });
  }
  open.push(pair);
}
const end = await ask<Stats>(gw.child, 'stats');
const books = await ask<Books>(gw.child, 'reconcile');
await closeOpenPools();
await stopAll(gw.child, [bare.child, mock.child]);

console.log('\nclosed loop (medians of the pairs)');
console.log(
  'conns  bare rps  gw rps  tput ratio  bare cpu us  gw cpu us  cpu ratio  gw longest stall ms  errors',
);
const cpuRatios: number[] = [];
const tputRatios: number[] = [];
for (const [c, pairs] of closed) {
  const m = (fn: (p: { bare: Measured; gateway: Measured }) => number) => median(pairs.map(fn));
  cpuRatios.push(m((p) => p.gateway.cpuUs / p.bare.cpuUs));
  tputRatios.push(m((p) => p.gateway.rps / p.bare.rps));
  console.log(
    [
      f(c).padStart(5),
      f(m((p) => p.bare.rps)).padStart(8),
      f(m((p) => p.gateway.rps)).padStart(6),
      f(tputRatios.at(-1) as number, 2).padStart(10),
      f(m((p) => p.bare.cpuUs)).padStart(11),
      `${f(m((p) => p.gateway.cpuUs))}${pairs.some((p) => p.gateway.closes > 0) ? '*' : ''}`.padStart(9),
      f(cpuRatios.at(-1) as number, 2).padStart(9),
      f(Math.max(...pairs.map((p) => p.gateway.stallMs)), 1).padStart(19),
      String(pairs.reduce((n, p) => n + p.gateway.errors + p.bare.errors, 0)).padStart(6),
    ].join('  '),
  );
}
// Where each one's CPU went: the main thread (user and system time) and the other threads (V8's garbage collection
// and compiler helpers; the gateway's usage-log writer). Read from /proc, so Linux only.
if ([...closed.values()].flat().every((p) => p.bare.threads && p.gateway.threads)) {
  console.log('\nCPU us per request by thread, closed loop (medians of the pairs)');
  console.log('conns  bare main user  bare main sys  bare others  gw main user  gw main sys  gw others');
  for (const [c, pairs] of closed) {
    const m = (t: Target, k: 'mainUser' | 'mainSystem' | 'others') =>
      f(median(pairs.map((p) => p[t].threads?.[k] ?? 0)));
    console.log(
      [
        f(c).padStart(5),
        m('bare', 'mainUser').padStart(14),
        m('bare', 'mainSystem').padStart(13),
        m('bare', 'others').padStart(11),
        m('gateway', 'mainUser').padStart(12),
        m('gateway', 'mainSystem').padStart(11),
        m('gateway', 'others').padStart(9),
      ].join('  '),
    );
  }
}
const lat = (r: Measured, p: number) => percentile(r.latencies, p);
console.log(
  `\nopen loop at ${rate} req/s (${FIXED_RATE > 0 ? 'MIX_RATE' : "half the gateway's median at 64 connections"})`,
);
console.log(
  'round  bare p50 ms  gw p50 ms  bare p99 ms  gw p99 ms  added p50 ms  added p99 ms  bare cpu us  gw cpu us  longest stall ms  errors  login failures',
);
for (const [i, p] of open.entries())
  console.log(
    [
      String(i + 1).padStart(5),
      f(lat(p.bare, 50), 2).padStart(11),
      f(lat(p.gateway, 50), 2).padStart(9),
      f(lat(p.bare, 99), 2).padStart(11),
      f(lat(p.gateway, 99), 2).padStart(9),
      f(lat(p.gateway, 50) - lat(p.bare, 50), 2).padStart(12),
      f(lat(p.gateway, 99) - lat(p.bare, 99), 2).padStart(12),
      f(p.bare.cpuUs).padStart(11),
      `${f(p.gateway.cpuUs)}${closeMark(p.gateway)}`.padStart(9),
      f(p.gateway.stallMs, 1).padStart(16),
      String(p.gateway.errors + p.bare.errors).padStart(6),
      String(p.loginFailures).padStart(14),
    ].join('  '),
  );
const all = [...[...closed.values()].flat(), ...open].map((p) => p.gateway.stallMs);
const bgLat = during.flatMap((d) => d.latencies);
const bgStall = Math.max(0, ...during.map((d) => d.stallMs));
console.log('');
console.log(
  `background under ${rate} req/s: export ${f(bg.exportMs)} ms, retention ${f(bg.retentionMs)} ms (${bg.purged} rows purged); meanwhile gateway p50 ${f(percentile(bgLat, 50), 2)} ms, p99 ${f(percentile(bgLat, 99), 2)} ms, longest stall ${f(bgStall, 1)} ms, errors ${during.reduce((n, d) => n + d.errors, 0)}`,
);
console.log(
  `gateway RSS: ${f(gw.msg.rssMb)} MB after start, ${f(rssAfterWarmup)} MB after warm-up, ${f(end.rssMb)} MB at the end, ${f(end.maxRssMb)} MB peak`,
);
console.log(
  `books: ${books.rows} log rows written; usage log quota ${books.logged}, users' used quota ${books.used}, tokens' ${books.tokenUsed}: ${reconciled(books) ? 'reconciled' : 'MISMATCH'}`,
);
console.log('targets:');
console.log(
  `  CPU per request ${cpuRatios.map((x) => x.toFixed(2)).join(' / ')}x the bare proxy at 16 / 64 connections (<= 1.6)`,
);
console.log(
  `  throughput ${tputRatios.map((x) => x.toFixed(2)).join(' / ')}x the bare proxy at 16 / 64 connections`,
);
console.log(
  `  p99 added at half of top throughput: median ${f(median(open.map((p) => lat(p.gateway, 99) - lat(p.bare, 99))), 2)} ms (<= 5)`,
);
console.log(`  longest event-loop stall: ${f(Math.max(...all), 1)} ms over every run (<= 20)`);
const closes = [...[...closed.values()].flat(), ...open].reduce((n, p) => n + p.gateway.closes, 0);
console.log(
  `usage log chunks closed: ${closes} in the measured runs (their gateway CPU marked *), ${during.reduce((n, d) => n + d.closes, 0)} during the background phase; a close's index builds are seconds of the writer thread's CPU`,
);
console.log(
  `load average after: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
process.exit(reconciled(books) ? 0 : 1);
