import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, SCENARIOS } from './load.ts';
import { type GroupProcess, groupProcesses, sampleGroup } from './process-group.ts';

/**
 * Memory of `npm start` as an operator runs it: `npm start` in a process group of its own (npm, its shell and
 * whatever they start), set up through the console API like a first run, then relay requests (OpenAI and
 * Anthropic in, plain and streamed, the converted pair too) against a local mock upstream. /proc is sampled
 * every 100 ms for three peaks: the group's summed RSS (the node binary's pages, shared by npm and the server,
 * count twice), its pages counted once (what the group occupies; needs root), and its summed PSS.
 *
 * `node --import tsx bench/start-memory.ts` prints the figures; `npm run bench` ends with them.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface StartMemory {
  /** Processes of the group right after start, before any request. */
  atStart: GroupProcess[];
  /** Processes of the group at the peak. */
  atPeak: GroupProcess[];
  startRssMb: number;
  peakRssMb: number;
  /** Undefined without root (/proc/<pid>/pagemap gives no page numbers). */
  peakUniqueMb?: number;
  peakPssMb: number;
  /** The server's own peak RSS (the node process running scripts/start.mjs). */
  serverPeakRssMb: number;
  requests: number;
  errors: number;
}

const mb = (kb: number) => kb / 1024;

/** The gateway's process: node running scripts/start.mjs (npm's own process runs npm-cli). */
export const isServer = (p: GroupProcess) => p.exe === 'node' && p.cmdline.includes('scripts/start.mjs');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function api(base: string, path: string, body: unknown, cookie = '', userId = 0) {
  const res = await fetch(base + path, {
    method: path === '/api/option/' ? 'PUT' : 'POST',
    headers: { 'content-type': 'application/json', cookie, 'new-api-user': String(userId) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; message: string; data: any };
  if (!json.success) throw new Error(`${path}: ${json.message}`);
  return { json, cookie: res.headers.getSetCookie()[0]?.split(';')[0] ?? cookie };
}

/** First-run setup, two channels on the upstream and an unlimited token; returns the token. */
async function seed(base: string, upstream: string): Promise<string> {
  await api(base, '/api/setup', {
    username: 'root',
    password: 'root-pass-1',
    confirmPassword: 'root-pass-1',
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  const login = await api(base, '/api/user/login', { username: 'root', password: 'root-pass-1' });
  const as = [login.cookie, login.json.data.id] as const;
  for (const [type, name, models] of [
    [1, 'openai', 'gpt-4o-mini'],
    [14, 'anthropic', 'claude-bench'],
  ])
    await api(
      base,
      '/api/channel/',
      { type, name, key: 'sk-upstream', base_url: upstream, models, group: 'default' },
      ...as,
    );
  await api(
    base,
    '/api/option/',
    { key: 'ModelRatio', value: JSON.stringify({ 'claude-bench': 1.5 }) },
    ...as,
  );
  const token = await api(
    base,
    '/api/token/',
    { name: 'load', remain_quota: 0, expired_time: -1, unlimited_quota: true },
    ...as,
  );
  return `sk-${token.json.data[0].key}`;
}

function startUpstream(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(ROOT, 'bench/mock-upstream.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: any) => resolve({ child, url: `http://127.0.0.1:${m.port}` }));
    child.once('exit', (code) => reject(new Error(`mock upstream exited with ${code}`)));
  });
}

export async function measureStartMemory(
  opts: { requests?: number; connections?: number[]; env?: Record<string, string> } = {},
): Promise<StartMemory> {
  const requests = opts.requests ?? 2000;
  const connections = opts.connections ?? [16, 64];
  const upstream = await startUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gw-start-memory-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let output = '';
  // A group of its own (detached = setsid), so the sampler sees npm and everything it starts, and nothing else.
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SQLITE_PATH: join(dir, 'gateway.db'),
      SESSION_SECRET: 'start-memory',
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
  });
  npm.stdout?.on('data', (d) => (output += d));
  npm.stderr?.on('data', (d) => (output += d));
  const pgid = npm.pid as number;
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`${base}/api/status`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (npm.exitCode !== null || i > 240) throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const key = await seed(base, upstream.url);
    const sampler = sampleGroup(pgid);
    const atStart = sampler.peak.processes;
    const startRssKb = sampler.peak.rssKb;
    let serverPeakKb = 0;
    const serverWatch = setInterval(() => {
      const server = groupProcesses(pgid).find(isServer);
      serverPeakKb = Math.max(serverPeakKb, server?.rssKb ?? 0);
    }, 100);
    let sent = 0;
    let errors = 0;
    for (const c of connections)
      for (const sc of SCENARIOS)
        for (const stream of [false, true]) {
          const r = await load(base, key, sc, stream, c, requests, 30);
          sent += r.requests;
          errors += r.errors;
        }
    const peak = sampler.stop();
    clearInterval(serverWatch);
    return {
      atStart,
      atPeak: peak.processes,
      startRssMb: mb(startRssKb),
      peakRssMb: mb(peak.rssKb),
      peakUniqueMb: peak.uniqueKb === undefined ? undefined : mb(peak.uniqueKb),
      peakPssMb: mb(peak.pssKb),
      serverPeakRssMb: mb(serverPeakKb),
      requests: sent,
      errors,
    };
  } finally {
    const exited = new Promise((r) => npm.once('exit', r));
    if (npm.exitCode === null) {
      process.kill(-pgid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    }
    try {
      process.kill(-pgid, 'SIGKILL'); // whatever is left of the group
    } catch {}
    upstream.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function summary(r: StartMemory): string {
  const unique = r.peakUniqueMb === undefined ? 'n/a (needs root)' : `${r.peakUniqueMb.toFixed(1)} MB`;
  return `npm start process group at peak: ${r.peakRssMb.toFixed(1)} MB summed RSS, ${unique} with shared pages counted once, ${r.peakPssMb.toFixed(1)} MB summed PSS; the server alone ${r.serverPeakRssMb.toFixed(1)} MB RSS`;
}

export function describeProcesses(procs: GroupProcess[]): string {
  return procs.map((p) => `    ${p.pid} ${p.exe} ${mb(p.rssKb).toFixed(1)} MB RSS: ${p.cmdline}`).join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await measureStartMemory({ requests: Number(process.env.BENCH_REQUESTS ?? 2000) });
  console.log(`npm start process group after start (${r.startRssMb.toFixed(1)} MB RSS summed):`);
  console.log(describeProcesses(r.atStart));
  console.log(`at the peak under load (${r.requests} relay requests, ${r.errors} errors):`);
  console.log(describeProcesses(r.atPeak));
  console.log(summary(r));
}
