import { type ChildProcess, fork } from 'node:child_process';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from '../scripts/server-runtime.mjs';
import { load as loadFor, SCENARIOS, type Scenario } from './load.ts';
import { pin, pinLoadGenerator } from './pin.ts';
import { measureStartMemory, summary } from './start-memory.ts';
import { median, percentile } from './stats.ts';

/**
 * Relay benchmark (`npm run bench`): a fast local upstream (OpenAI chat and Anthropic Messages), then the same
 * load through a bare node:http proxy (keep-alive agent, bytes piped, nothing else: the floor for any Node
 * gateway) and through the gateway (auth, routing, billing and usage logs all on). Rows: OpenAI in and out,
 * Anthropic in and out, and Anthropic in with OpenAI out (converted both ways), plain and streamed, at 1, 16
 * and 64 connections. Loopback only; each run is bounded in requests and seconds. Prints requests/s, latency
 * p50 and what the gateway adds over the bare proxy, time to first byte for streams, CPU time per request of
 * both (process.cpuUsage in their own processes), the gateway's peak RSS, and the ratios the targets use;
 * then the peak memory of the whole `npm start` process group under load.
 */
const CONNECTIONS = [1, 16, 64];
const MAX_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// Measured pairs (bare proxy, gateway) per row; the rows show their medians.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Requests before each measured run, to reach the connection count's steady state.
const WARMUP = 2000;

// The gateway runs as `npm start` runs it: bundled by esbuild, plain node, the server's node flags. The mock
// and the calibration proxy are bundled the same way so no process pays for a TypeScript loader.
const built = new Map<string, string>();
for (const name of ['mock-upstream', 'gateway', 'baseline-proxy'])
  built.set(name, await buildServer(`bench/${name}.ts`, `bench/dist/${name}.js`));

// The setting: gateway and mock share one core, the load generator has the other.
const pinned = pinLoadGenerator();
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

const load = (origin: string, key: string, sc: Scenario, stream: boolean, connections: number, max: number) =>
  loadFor(origin, key, sc, stream, connections, max, MAX_SECONDS);

const ms = (n: number) => n.toFixed(3);

const mock = await start('mock-upstream');
const upstream = `http://127.0.0.1:${mock.msg.port}`;
const gw = await start('gateway', { BENCH_UPSTREAM: upstream });
const gateway = `http://127.0.0.1:${gw.msg.port}`;
const key: string = gw.msg.key;
const bare = await start('baseline-proxy', { BENCH_UPSTREAM: upstream });
const bareOrigin = `http://127.0.0.1:${bare.msg.port}`;

// One long warm-up through the gateway and the bare proxy before any row, so every row measures the steady
// state (V8's optimising compiler runs on background threads whose CPU time the process is charged for).
for (const sc of SCENARIOS) {
  await load(gateway, key, sc, false, 16, 3 * MAX_REQUESTS);
  await load(gateway, key, sc, true, 16, 2 * MAX_REQUESTS);
}
await load(bareOrigin, key, SCENARIOS[0], false, 16, 3 * MAX_REQUESTS);
await load(bareOrigin, key, SCENARIOS[1], true, 16, 2 * MAX_REQUESTS);

/** One measured run: requests, latencies and the CPU time the process behind `origin` spent on them. */
async function measure(child: ChildProcess, origin: string, sc: Scenario, stream: boolean, c: number) {
  const before = await ask<{ cpuUs: number }>(child, 'stats');
  const r = await load(origin, key, sc, stream, c, MAX_REQUESTS);
  const after = await ask<{ cpuUs: number; maxRssKb: number }>(child, 'stats');
  return { ...r, cpuUs: (after.cpuUs - before.cpuUs) / Math.max(1, r.requests), maxRssKb: after.maxRssKb };
}

type Measured = Awaited<ReturnType<typeof measure>>;
/** One bare-proxy run and one gateway run of the same load, back to back. */
function pairOf(base: Measured, through: Measured) {
  const bRps = base.requests / base.seconds;
  const gRps = through.requests / through.seconds;
  return {
    bRps,
    gRps,
    tput: gRps / bRps,
    bP50: percentile(base.latencies, 50),
    gP50: percentile(through.latencies, 50),
    added50: percentile(through.latencies, 50) - percentile(base.latencies, 50),
    gTtfb: percentile(through.ttfb, 50),
    bCpu: base.cpuUs,
    gCpu: through.cpuUs,
    cpuRatio: through.cpuUs / base.cpuUs,
    gRssKb: through.maxRssKb,
    errors: through.errors + base.errors,
  };
}
type Pair = ReturnType<typeof pairOf>;

const rows: string[][] = [];
// BENCH_PROFILE=<dir>: a CPU profile of the gateway over the measured runs (after start-up and warm-up).
const profiling = !!process.env.BENCH_PROFILE;
if (profiling) await ask(gw.child, 'profile-start');
/** Per scenario and mode: the ratios the targets read, at 16 and 64 connections, and the p50 added at 1. */
const figures = new Map<string, { cpu: number[]; tput: number[]; gwCpu: number[]; addedP50At1: number }>();
for (const sc of SCENARIOS) {
  for (const stream of [false, true]) {
    const f = { cpu: [] as number[], tput: [] as number[], gwCpu: [] as number[], addedP50At1: 0 };
    figures.set(`${sc.name}/${stream ? 'stream' : 'json'}`, f);
    for (const c of CONNECTIONS) {
      await load(bareOrigin, key, sc, stream, c, WARMUP);
      await load(gateway, key, sc, stream, c, WARMUP);
      // ROUNDS interleaved pairs, the order alternating, and the median of each figure: the machine's speed
      // drifts within a run, and a pair measured back to back sees the same machine.
      const pairs: Pair[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const bareFirst = r % 2 === 0;
        const first = bareFirst
          ? await measure(bare.child, bareOrigin, sc, stream, c)
          : await measure(gw.child, gateway, sc, stream, c);
        const second = bareFirst
          ? await measure(gw.child, gateway, sc, stream, c)
          : await measure(bare.child, bareOrigin, sc, stream, c);
        pairs.push(bareFirst ? pairOf(first, second) : pairOf(second, first));
      }
      const m = (k: keyof Pair) => median(pairs.map((x) => x[k]));
      if (c === 1) f.addedP50At1 = m('added50');
      else {
        f.cpu.push(m('cpuRatio'));
        f.tput.push(m('tput'));
        f.gwCpu.push(m('gCpu'));
      }
      rows.push([
        sc.name,
        stream ? 'stream' : 'json',
        String(c),
        m('bRps').toFixed(0),
        m('gRps').toFixed(0),
        m('tput').toFixed(2),
        ms(m('bP50')),
        ms(m('gP50')),
        ms(m('added50')),
        stream ? ms(m('gTtfb')) : '-',
        m('bCpu').toFixed(0),
        m('gCpu').toFixed(0),
        m('cpuRatio').toFixed(2),
        // The process's peak so far (maxRSS never goes down).
        (Math.max(...pairs.map((x) => x.gRssKb)) / 1024).toFixed(0),
        String(pairs.reduce((n, x) => n + x.errors, 0)),
      ]);
    }
  }
}
bare.child.kill();
if (profiling) await ask(gw.child, 'profile-stop');
const stats = await ask<{ maxRssKb: number }>(gw.child, 'stats');
gw.child.send({ cmd: 'gc' });
const afterGc = await ask<{ heapUsedMb: number }>(gw.child, 'stats');
const logs = await ask<{ logs: number }>(gw.child, 'logs');
gw.child.send({ cmd: 'stop' });
mock.child.kill();

const header = [
  'scenario',
  'mode',
  'conns',
  'bare rps',
  'gateway rps',
  'tput ratio',
  'bare p50 ms',
  'gw p50 ms',
  'added p50 ms',
  'gw ttfb p50 ms',
  'bare cpu us',
  'gw cpu us',
  'cpu ratio',
  'peak rss MB',
  'errors',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((v, i) => v.padStart(widths[i])).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));
const peakMb = stats.maxRssKb / 1024;
console.log('');
console.log(
  `gateway RSS: ${gw.msg.idleRssMb.toFixed(1)} MB after start, ${peakMb.toFixed(1)} MB peak; heap in use after a full GC ${afterGc.heapUsedMb.toFixed(1)} MB; usage log rows written: ${logs.logs}`,
);
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log('targets (ratios to the bare proxy at 16 and 64 connections):');
for (const [name, f] of figures) {
  const json = name.endsWith('/json');
  console.log(
    `  ${name}: cpu ${range(f.cpu)} (<= ${json ? '1.5' : '2'}), throughput ${range(f.tput)} (>= ${json ? '0.8' : '0.7'}), added p50 @1 ${(f.addedP50At1 * 1000).toFixed(0)} us (<= 100)`,
  );
}
for (const mode of ['json', 'stream']) {
  const same = figures.get(`openai/${mode}`);
  const conv = figures.get(`anthropic>openai/${mode}`);
  if (same && conv)
    console.log(
      `  conversion (${mode}): anthropic>openai uses ${(mean(conv.cpu) / mean(same.cpu)).toFixed(2)}x the CPU of openai>openai, each over its bare proxy (<= 1.3; raw ${(mean(conv.gwCpu) / mean(same.gwCpu)).toFixed(2)}x)`,
    );
}

// `npm start` as operators run it (npm and the server in one process group), under the same kinds of requests
// at 16 and 64 connections: the group's peak memory (bench/start-memory.ts). BENCH_START_MEMORY=0 skips it.
if (process.env.BENCH_START_MEMORY !== '0') {
  console.log('');
  console.log(summary(await measureStartMemory({ requests: 2000 })));
}
process.exit(0);
