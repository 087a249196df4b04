import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Pool } from 'undici';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from '../scripts/server-runtime.mjs';

/**
 * Relay benchmark (`npm run bench`): a fast local upstream, then the same load sent directly to it and
 * through the gateway (auth, routing, billing and usage logs all on), for plain and streamed chat at 1, 16
 * and 64 connections. Loopback only; each run is bounded in requests and seconds. Prints requests/s, latency
 * p50/p99 and what the gateway adds, time to first byte for streams, the gateway's CPU time per request
 * (process.cpuUsage in the gateway process), its peak RSS, and the gateway/direct throughput ratio.
 */
const CONNECTIONS = [1, 16, 64];
const MAX_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// Requests before each measured run, to reach the connection count's steady state.
const WARMUP = 2000;

// The gateway runs as `npm start` runs it: bundled by esbuild, plain node, the server's node flags. The mock
// and the calibration proxy are bundled the same way so no process pays for a TypeScript loader.
const built = new Map<string, string>();
for (const name of ['mock-upstream', 'gateway', 'baseline-proxy'])
  built.set(name, await buildServer(`bench/${name}.ts`, `bench/dist/${name}.js`));

// The setting: gateway and mock share one core, the load generator has the other.
const pin = (pid: number, core: number) => {
  try {
    execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const pinned = availableParallelism() >= 2 && pin(process.pid, 0);
if (!pinned) console.log('note: taskset unavailable or one core only; processes are not pinned');

function start(name: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; msg: any }> {
  const child = fork(built.get(name) as string, [], {
    // --expose-gc only so the report can show the heap after a full collection, at the very end.
    execArgv: name === 'gateway' ? [...SERVER_NODE_FLAGS, '--expose-gc'] : [],
    env: { ...(name === 'gateway' ? SERVER_ENV : {}), ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (msg) => {
      if (pinned && child.pid) pin(child.pid, 1);
      resolve({ child, msg });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

const ask = <T>(child: ChildProcess, cmd: string): Promise<T> =>
  new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send({ cmd });
  });

interface Result {
  requests: number;
  seconds: number;
  latencies: number[];
  ttfb: number[];
  errors: number;
}

async function load(
  origin: string,
  key: string,
  stream: boolean,
  connections: number,
  max: number,
): Promise<Result> {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({
    model: 'gpt-4o-mini',
    stream,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello there, how are you?' }],
  });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const latencies: number[] = [];
  const ttfb: number[] = [];
  let sent = 0;
  let errors = 0;
  const deadline = performance.now() + MAX_SECONDS * 1000;
  const started = performance.now();
  const worker = async () => {
    while (sent < max && performance.now() < deadline) {
      sent++;
      const t0 = performance.now();
      try {
        const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body });
        let first = 0;
        for await (const _ of res.body) if (!first) first = performance.now();
        if (res.statusCode !== 200) errors++;
        const t1 = performance.now();
        latencies.push(t1 - t0);
        if (stream) ttfb.push((first || t1) - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { requests: latencies.length, seconds, latencies, ttfb, errors };
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (n: number) => n.toFixed(3);

const mock = await start('mock-upstream');
const upstream = `http://127.0.0.1:${mock.msg.port}`;
const gw = await start('gateway', { BENCH_UPSTREAM: upstream });
const gateway = `http://127.0.0.1:${gw.msg.port}`;
const key: string = gw.msg.key;

// One long warm-up through the gateway before any row, plain and streamed, so every row measures the steady
// state (V8's optimising compiler runs on background threads whose CPU time the process is charged for).
await load(gateway, key, false, 16, 10 * MAX_REQUESTS);
await load(gateway, key, true, 16, 5 * MAX_REQUESTS);

const rows: string[][] = [];
// BENCH_PROFILE=<dir>: a CPU profile of the gateway over the measured runs (after start-up and warm-up).
const profiling = !!process.env.BENCH_PROFILE;
let cpuPerNonStream = 0;
let addedP50At1 = 0;
let addedTtfbAt1 = 0;
for (const stream of [false, true]) {
  for (const c of CONNECTIONS) {
    await load(upstream, key, stream, c, WARMUP);
    await load(gateway, key, stream, c, WARMUP);
    const direct = await load(upstream, key, stream, c, MAX_REQUESTS);
    if (profiling && !stream && c === 1) await ask(gw.child, 'profile-start');
    const before = await ask<{ cpuUs: number }>(gw.child, 'stats');
    const through = await load(gateway, key, stream, c, MAX_REQUESTS);
    const after = await ask<{ cpuUs: number; maxRssKb: number }>(gw.child, 'stats');
    const cpuUs = (after.cpuUs - before.cpuUs) / Math.max(1, through.requests);
    const dRps = direct.requests / direct.seconds;
    const gRps = through.requests / through.seconds;
    const added50 = pct(through.latencies, 50) - pct(direct.latencies, 50);
    const added99 = pct(through.latencies, 99) - pct(direct.latencies, 99);
    const addedTtfb = stream ? pct(through.ttfb, 50) - pct(direct.ttfb, 50) : 0;
    if (!stream && c === 1) addedP50At1 = added50;
    if (!stream) cpuPerNonStream = Math.max(cpuPerNonStream, cpuUs);
    if (stream && c === 1) addedTtfbAt1 = addedTtfb;
    rows.push([
      stream ? 'stream' : 'plain',
      String(c),
      dRps.toFixed(0),
      gRps.toFixed(0),
      (gRps / dRps).toFixed(2),
      ms(pct(through.latencies, 50)),
      ms(added50),
      ms(added99),
      stream ? ms(pct(through.ttfb, 50)) : '-',
      stream ? ms(addedTtfb) : '-',
      cpuUs.toFixed(0),
      (after.maxRssKb / 1024).toFixed(0),
      String(through.errors + direct.errors),
    ]);
  }
}
// Calibration: a bare node:http + undici proxy on the same machine. Plain chat at 1 and 16 connections, in
// rounds that alternate between it and the gateway so both see the same background load.
const base = await start('baseline-proxy', { BENCH_UPSTREAM: upstream });
const baseOrigin = `http://127.0.0.1:${base.msg.port}`;
// The gateway is warm from the runs above; give the baseline as many requests before measuring it.
await load(baseOrigin, key, false, 1, MAX_REQUESTS);
await load(baseOrigin, key, false, 16, MAX_REQUESTS);
const cpuOf = async (child: ChildProcess, origin: string, c: number) => {
  const before = await ask<{ cpuUs: number }>(child, 'stats');
  const n = (await load(origin, key, false, c, 200 * c)).requests;
  const after = await ask<{ cpuUs: number }>(child, 'stats');
  return { us: after.cpuUs - before.cpuUs, n };
};
const calibration = [1, 16].map((c) => ({ c, gateway: { us: 0, n: 0 }, base: { us: 0, n: 0 } }));
for (let round = 0; round < 6; round++) {
  for (const cal of calibration) {
    for (const [who, child, origin] of [
      ['gateway', gw.child, gateway],
      ['base', base.child, baseOrigin],
    ] as const) {
      const r = await cpuOf(child, origin, cal.c);
      cal[who].us += r.us;
      cal[who].n += r.n;
    }
  }
}
base.child.kill();
const perReq = (x: { us: number; n: number }) => x.us / Math.max(1, x.n);
if (profiling) await ask(gw.child, 'profile-stop');
const stats = await ask<{ maxRssKb: number }>(gw.child, 'stats');
gw.child.send({ cmd: 'gc' });
const afterGc = await ask<{ heapUsedMb: number }>(gw.child, 'stats');
const logs = await ask<{ logs: number }>(gw.child, 'logs');
gw.child.send({ cmd: 'stop' });
mock.child.kill();

const header = [
  'mode',
  'conns',
  'direct rps',
  'gateway rps',
  'ratio',
  'gw p50 ms',
  'added p50 ms',
  'added p99 ms',
  'gw ttfb p50 ms',
  'added ttfb ms',
  'gw cpu us/req',
  'peak rss MB',
  'errors',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((v, i) => v.padStart(widths[i])).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
const peakMb = stats.maxRssKb / 1024;
console.log('');
for (const cal of calibration) {
  const g = perReq(cal.gateway);
  const b = perReq(cal.base);
  console.log(
    `calibration (alternating rounds, plain, ${cal.c} connection${cal.c > 1 ? 's' : ''}): gateway ${g.toFixed(0)} us CPU/request, bare node:http + undici proxy ${b.toFixed(0)} us, so the relay's own work is about ${(g - b).toFixed(0)} us`,
  );
}
console.log(
  `gateway RSS: ${gw.msg.idleRssMb.toFixed(1)} MB after start, ${peakMb.toFixed(1)} MB peak; heap in use after a full GC ${afterGc.heapUsedMb.toFixed(1)} MB; usage log rows written: ${logs.logs}`,
);
console.log(
  `targets: cpu/non-stream req ${cpuPerNonStream.toFixed(0)} us (<= 150), added p50 @1 ${ms(addedP50At1)} ms (<= 0.3), added stream TTFB @1 ${ms(addedTtfbAt1)} ms (<= 1), peak RSS ${peakMb.toFixed(0)} MB (<= 150)`,
);
process.exit(0);
