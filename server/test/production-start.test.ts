import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupProcesses } from '../../bench/process-group.ts';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-runtime.mjs';
import { ConsoleClient } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { freePort, waitForGateway } from './support/spawned.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `npm start` as an operator runs it: the server bundled by esbuild and run with plain node and the production
 * flags, in the one process npm starts (every other test runs the TypeScript through a loader). Set up through
 * the console API, then the official client through the relay's fast lane, plain and streamed; the console
 * page; a clean SIGTERM sent to npm.
 */
describe('production start (npm start)', () => {
  let proc: ChildProcess;
  let url: string;
  let mock: MockUpstream;
  let output = '';

  beforeAll(async () => {
    mock = await startMockUpstream();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // In a process group of its own, so the test sees npm and everything it started.
    proc = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SQLITE_PATH: join(mkdtempSync(join(tmpdir(), 'gw-start-')), 'gateway.db'),
        SESSION_SECRET: 'production-start-test',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (d) => (output += d));
    proc.stderr?.on('data', (d) => (output += d));
    await waitForGateway(url, proc, () => output);
  }, 60_000);
  afterAll(async () => {
    if (proc?.pid && proc.exitCode === null) process.kill(-proc.pid, 'SIGKILL');
    await mock?.close();
  });

  it('runs the server as the only node process besides npm, with the production flags and environment', () => {
    const procs = groupProcesses(proc.pid as number);
    const node = procs.filter((p) => p.exe === 'node');
    expect(node.map((p) => p.pid)).toHaveLength(2);
    const npm = node.find((p) => p.pid === proc.pid);
    expect(npm?.cmdline).toMatch(/^npm start/);
    const server = node.find((p) => p.pid !== proc.pid);
    expect(server?.cmdline).toContain('scripts/start.mjs');
    for (const flag of SERVER_NODE_FLAGS) expect(server?.cmdline.split(' ')).toContain(flag);
    // npm's shell replaced itself with node, and no builder is left running.
    expect(procs.map((p) => p.exe).sort()).toEqual(['node', 'node']);
    const environ = readFileSync(`/proc/${server?.pid}/environ`, 'utf8').split('\0');
    for (const [k, v] of Object.entries(SERVER_ENV)) expect(environ).toContain(`${k}=${v}`);
  });

  it("runs Node's own threads below the event loop", () => {
    const server = groupProcesses(proc.pid as number).find((p) => p.pid !== proc.pid && p.exe === 'node');
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/${server?.pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state is the 3rd field of the line, nice the 19th.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const tids = readdirSync(`/proc/${server?.pid}/task`);
    const loop = nice(String(server?.pid));
    // V8's four helper threads and its task scheduler, at least, are lowered at start; the event loop is not.
    expect(tids.filter((t) => nice(t) === Math.min(19, loop + 10)).length).toBeGreaterThanOrEqual(5);
    expect(tids.filter((t) => nice(t) === loop)).toContain(String(server?.pid));
  });

  it('serves the console and relays through the bundled server', async () => {
    const status = (await (await fetch(`${url}/api/status`)).json()) as { data: { version: string } };
    expect(status.data.version).toMatch(/^v\d+\.\d+\.\d+/);
    const page = await (await fetch(`${url}/setup`)).text();
    expect(page).toContain('<div id="root">');

    const admin = new ConsoleClient(url);
    const setup = await admin.post('/api/setup', {
      username: 'root',
      password: 'root-pass-1',
      confirmPassword: 'root-pass-1',
      SelfUseModeEnabled: false,
      DemoSiteEnabled: false,
    });
    expect(setup.success, setup.message).toBe(true);
    expect((await admin.login('root', 'root-pass-1')).success).toBe(true);
    const model = 'gpt-4.1-nano-2025-04-14';
    const channel = await admin.post('/api/channel/', {
      type: 1,
      name: 'recorded',
      key: 'sk-good',
      base_url: mock.url,
      models: model,
      group: 'default',
    });
    expect(channel.success, channel.message).toBe(true);
    const token = await admin.post('/api/token/', {
      name: 'ci',
      remain_quota: 0,
      expired_time: -1,
      unlimited_quota: true,
    });
    expect(token.success, token.message).toBe(true);

    const client = new OpenAI({ apiKey: `sk-${token.data[0].key}`, baseURL: `${url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'Invent a new holiday.' }];
    const plain = await client.chat.completions.create({ model, messages });
    expect(plain.choices[0].message.content).toContain('Galaxy Day');
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ model, messages, stream: true }))
      streamed += chunk.choices[0]?.delta?.content ?? '';
    expect(streamed.length).toBeGreaterThan(20);
    // Both requests are billed: their usage rows are written by the ledger's SQLite writer thread (the bundle's
    // ledger-worker.js) within a flush interval.
    let rows: Array<{ model_name: string; quota: number }> = [];
    for (let i = 0; i < 40 && rows.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 250));
      rows = (await admin.get('/api/log/?p=1&page_size=10&type=2')).data.items;
    }
    expect(rows.map((r) => r.model_name)).toEqual([model, model]);
    for (const r of rows) expect(r.quota).toBeGreaterThan(0);
  });

  it('stops cleanly on SIGTERM to npm', async () => {
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 20_000);
});
