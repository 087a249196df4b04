import { type ChildProcess, fork } from 'node:child_process';
import { Pool } from 'undici';

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
const WARMUP = 300;

function start(file: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; msg: any }> {
  const child = fork(new URL(file, import.meta.url).pathname, [], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_PROFILE && file.includes('gateway')
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
        : []),
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (msg) => resolve({ child, msg }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
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

const mock = await start('./mock-upstream.ts');
const upstream = `http://127.0.0.1:${mock.msg.port}`;
const gw = await start('./gateway.ts', { BENCH_UPSTREAM: upstream });
const gateway = `http://127.0.0.1:${gw.msg.port}`;
const key: string = gw.msg.key;

const rows: string[][] = [];
let cpuPerNonStream = 0;
let addedP50At1 = 0;
let addedTtfbAt1 = 0;
for (const stream of [false, true]) {
  for (const c of CONNECTIONS) {
    await load(upstream, key, stream, c, WARMUP);
    await load(gateway, key, stream, c, WARMUP);
    const direct = await load(upstream, key, stream, c, MAX_REQUESTS);
    const before = await ask<{ cpuUs: number }>(gw.child, 'stats');
    const through = await load(gateway, key, stream, c, MAX_REQUESTS);
    const after = await ask<{ cpuUs: number }>(gw.child, 'stats');
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
      String(through.errors + direct.errors),
    ]);
  }
}
// Calibration: a bare Fastify + undici proxy on the same machine. Plain chat at 1 connection, in rounds that
// alternate between it and the gateway so both see the same background load.
const base = await start('./baseline-proxy.ts', { BENCH_UPSTREAM: upstream });
const baseOrigin = `http://127.0.0.1:${base.msg.port}`;
// The gateway is warm from the runs above; give the baseline as many requests before measuring it.
await load(baseOrigin, key, false, 1, MAX_REQUESTS);
const cpu = { gateway: 0, base: 0, gatewayN: 0, baseN: 0 };
for (let round = 0; round < 10; round++) {
  const g0 = await ask<{ cpuUs: number }>(gw.child, 'stats');
  cpu.gatewayN += (await load(gateway, key, false, 1, 200)).requests;
  const g1 = await ask<{ cpuUs: number }>(gw.child, 'stats');
  const b0 = await ask<{ cpuUs: number }>(base.child, 'stats');
  cpu.baseN += (await load(baseOrigin, key, false, 1, 200)).requests;
  const b1 = await ask<{ cpuUs: number }>(base.child, 'stats');
  cpu.gateway += g1.cpuUs - g0.cpuUs;
  cpu.base += b1.cpuUs - b0.cpuUs;
}
base.child.kill();
const gwCpu = cpu.gateway / Math.max(1, cpu.gatewayN);
const baseCpu = cpu.base / Math.max(1, cpu.baseN);
const stats = await ask<{ maxRssKb: number }>(gw.child, 'stats');
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
  'errors',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((v, i) => v.padStart(widths[i])).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
const peakMb = stats.maxRssKb / 1024;
console.log('');
console.log(
  `calibration (alternating rounds, plain, 1 connection): gateway ${gwCpu.toFixed(0)} us CPU/request, bare Fastify + undici proxy ${baseCpu.toFixed(0)} us, so the relay's own work is about ${(gwCpu - baseCpu).toFixed(0)} us`,
);
console.log(
  `gateway RSS: ${gw.msg.idleRssMb.toFixed(1)} MB after start, ${peakMb.toFixed(1)} MB peak; usage log rows written: ${logs.logs}`,
);
console.log(
  `targets: cpu/non-stream req ${cpuPerNonStream.toFixed(0)} us (<= 150), added p50 @1 ${ms(addedP50At1)} ms (<= 0.3), added stream TTFB @1 ${ms(addedTtfbAt1)} ms (<= 1), peak RSS ${peakMb.toFixed(0)} MB (<= 150)`,
);
process.exit(0);
