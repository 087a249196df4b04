import { type ChildProcess, fork } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildServer, SERVER_ENV, SERVER_NODE_FLAGS } from '../scripts/server-runtime.mjs';
import { load, SCENARIOS } from './load.ts';
import { pin, pinLoadGenerator } from './pin.ts';
import { median, percentile } from './stats.ts';

/**
 * A focused CPU harness for work on the relay's hot path (`npm run bench` measures everything and takes
 * minutes): the bare proxy and one or more gateway builds behind the same mock upstream, measured in
 * interleaved rounds, printing each one's CPU time per request (process.cpuUsage in its own process) and the
 * gateways' ratios to the bare proxy of the same round. On a shared machine absolute figures drift; the
 * ratios of interleaved runs are what to compare.
 *
 *   node --import tsx bench/cpu.ts                      the current code against the bare proxy
 *   node --import tsx bench/cpu.ts --save base          bundles the current code as build "base" and exits
 *   node --import tsx bench/cpu.ts --against base       also measures build "base", interleaved
 *   node --import tsx bench/cpu.ts --save notrace --without-tracing
 *                                                       saves a build whose tracing hooks are empty functions,
 *                                                       to measure what the hooks cost with tracing off
 *   --rounds 5 --requests 3000 --conns 16 --only openai/json,anthropic/stream --profile <dir>
 *
 * --profile writes a CPU profile of the current gateway over the measured runs.
 */
const { values: args } = parseArgs({
  options: {
    save: { type: 'string' },
    against: { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '3000' },
    conns: { type: 'string', default: '16' },
    only: { type: 'string' },
    profile: { type: 'string' },
    'without-tracing': { type: 'boolean', default: false },
  },
});

// The relay's tracing hooks replaced by bench/no-tracing.ts: the gateway as it would be without them.
const withoutTracing = {
  name: 'without-tracing',
  setup(b: { onResolve(o: { filter: RegExp }, f: () => { path: string }): void }) {
    b.onResolve({ filter: /infra\/tracing\/relay-trace\.ts$/ }, () => ({
      path: new URL('./no-tracing.ts', import.meta.url).pathname,
    }));
  },
};
const gatewayJs = await buildServer(
  'bench/gateway.ts',
  'bench/dist/gateway.js',
  args['without-tracing'] ? [withoutTracing] : [],
);
if (args.save) {
  copyFileSync(gatewayJs, `bench/dist/gateway-${args.save}.js`);
  console.log(`saved bench/dist/gateway-${args.save}.js`);
  process.exit(0);
}
const mockJs = await buildServer('bench/mock-upstream.ts', 'bench/dist/mock-upstream.js');
const bareJs = await buildServer('bench/baseline-proxy.ts', 'bench/dist/baseline-proxy.js');

const pinned = pinLoadGenerator();

interface Target {
  name: string;
  child: ChildProcess;
  origin: string;
  key: string;
}

function start(name: string, file: string, env: Record<string, string>, gateway: boolean): Promise<Target> {
  const child = fork(file, [], {
    execArgv: gateway ? SERVER_NODE_FLAGS : [],
    env: { ...(gateway ? SERVER_ENV : {}), ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (msg: any) => {
      if (pinned && child.pid) pin(child.pid, 1);
      resolve({ name, child, origin: `http://127.0.0.1:${msg.port}`, key: msg.key });
    });
    child.once('exit', (code) => {
      reject(new Error(`${name} exited with ${code}`));
      // A target that dies mid-run would leave the harness waiting for its answer forever.
      if (code) {
        console.error(`${name} exited with ${code}`);
        process.exit(1);
      }
    });
  });
}

const ask = <T>(child: ChildProcess, cmd: string): Promise<T> =>
  new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send({ cmd });
  });

const mock = await start('mock', mockJs, {}, false);
const env = { BENCH_UPSTREAM: mock.origin };
const profileEnv: Record<string, string> = args.profile ? { BENCH_PROFILE: args.profile } : {};
const gateways: Target[] = [await start('current', gatewayJs, { ...env, ...profileEnv }, true)];
for (const name of args.against) {
  const file = `bench/dist/gateway-${name}.js`;
  if (!existsSync(file)) throw new Error(`no saved build ${file} (use --save ${name})`);
  gateways.push(await start(name, file, env, true));
}
const bare = await start('bare', bareJs, env, false);
const key = gateways[0].key;

const requests = Number(args.requests);
const conns = Number(args.conns);
const rounds = Number(args.rounds);
const cases = SCENARIOS.flatMap((sc) =>
  [false, true].map((stream) => ({ sc, stream, name: `${sc.name}/${stream ? 'stream' : 'json'}` })),
).filter((c) => !args.only || args.only.split(',').includes(c.name));

/** CPU us per request of the process behind `t`, and the p50 latency in us. */
async function run(t: Target, c: (typeof cases)[number], n: number): Promise<{ cpu: number; p50: number }> {
  const before = await ask<{ cpuUs: number }>(t.child, 'stats');
  const r = await load(t.origin, key, c.sc, c.stream, conns, n, 60);
  const after = await ask<{ cpuUs: number }>(t.child, 'stats');
  if (r.errors) throw new Error(`${t.name} ${c.name}: ${r.errors} errors`);
  return {
    cpu: (after.cpuUs - before.cpuUs) / Math.max(1, r.requests),
    p50: percentile(r.latencies, 50) * 1000,
  };
}

// Warm-up: every target over every case, long enough for V8's optimising compiler to settle.
for (const c of cases) for (const t of [bare, ...gateways]) await run(t, c, 2 * requests);

if (args.profile) await ask(gateways[0].child, 'profile-start');
const figures = new Map<string, number[]>();
const push = (k: string, v: number) => figures.set(k, [...(figures.get(k) ?? []), v]);
for (let round = 0; round < rounds; round++) {
  for (const c of cases) {
    // Alternate the order each round so no target always runs right after another.
    const order = round % 2 ? [...gateways].reverse() : gateways;
    const b = await run(bare, c, requests);
    push(`${c.name}|bare`, b.cpu);
    push(`${c.name}|bare|p50`, b.p50);
    for (const g of order) {
      const r = await run(g, c, requests);
      push(`${c.name}|${g.name}`, r.cpu);
      push(`${c.name}|${g.name}|ratio`, r.cpu / b.cpu);
      push(`${c.name}|${g.name}|p50`, r.p50);
    }
  }
}
if (args.profile) await ask(gateways[0].child, 'profile-stop');

console.log(
  `${rounds} rounds x ${requests} requests at ${conns} connections; medians (min-max) of CPU us per request, its ratio to the bare proxy, and p50 latency`,
);
for (const c of cases) {
  const f = (k: string, d: number) => {
    const xs = figures.get(k) ?? [];
    return `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)})`;
  };
  const parts = [`bare ${f(`${c.name}|bare`, 0)} us, p50 ${f(`${c.name}|bare|p50`, 0)} us`];
  for (const g of gateways)
    parts.push(
      `${g.name} ${f(`${c.name}|${g.name}`, 0)} us, ${f(`${c.name}|${g.name}|ratio`, 2)}x, p50 ${f(`${c.name}|${g.name}|p50`, 0)} us`,
    );
  console.log(`${c.name}\n  ${parts.join('\n  ')}`);
}
for (const g of gateways) g.child.send({ cmd: 'stop' });
bare.child.kill();
mock.child.kill();
process.exit(0);
