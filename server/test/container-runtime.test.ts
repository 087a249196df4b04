import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRuntimePackages } from '../../scripts/runtime-deps.mjs';
import {
  buildServer,
  EXTERNAL_PACKAGES,
  SERVER_ENV,
  SERVER_NODE_FLAGS,
} from '../../scripts/server-runtime.mjs';
import { ConsoleClient } from './support/console-client.ts';
import { databaseNamed } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { freePort, waitForGateway } from './support/spawned.ts';

/**
 * What the container image holds, assembled the way its build stage does it, in a folder outside the repository
 * (so nothing resolves back into the development install): the server bundle, the built console and only the
 * packages the bundle loads at run time (scripts/runtime-deps.mjs). Started with plain node and the image's
 * flags and environment: health probe, console, a relay call, PostgreSQL through the lazily loaded driver, and
 * a clean stop.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const postgres = databaseNamed('postgres');

describe('the container image layout (bundle + run-time packages only)', () => {
  let dir: string;
  let mock: MockUpstream;
  const running: ChildProcess[] = [];

  async function start(env: Record<string, string>) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let output = '';
    const proc = spawn(process.execPath, [...SERVER_NODE_FLAGS, 'server/dist/main.js'], {
      cwd: dir,
      // Only what the image sets: no NODE_PATH or npm variables that could reach the repository's packages.
      env: {
        PATH: process.env.PATH ?? '',
        ...SERVER_ENV,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        SQLITE_PATH: join(dir, 'data', 'gateway.db'),
        SESSION_SECRET: 'container-test',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(proc);
    proc.stdout?.on('data', (d) => (output += d));
    proc.stderr?.on('data', (d) => (output += d));
    await waitForGateway(url, proc, () => output);
    return { proc, url };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-image-'));
    await buildServer('server/src/main.ts', join(dir, 'server/dist/main.js'));
    if (existsSync(join(ROOT, 'web/dist/index.html')))
      cpSync(join(ROOT, 'web/dist'), join(dir, 'web/dist'), { recursive: true });
    copyRuntimePackages(dir);
    mock = await startMockUpstream();
  }, 120_000);
  afterAll(async () => {
    for (const p of running) if (p.exitCode === null) p.kill('SIGKILL');
    await mock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has every run-time package and what each needs, and nothing of the development install', () => {
    const optional = new Set(['bufferutil', 'utf-8-validate']);
    const wanted = EXTERNAL_PACKAGES.filter((p) => !optional.has(p));
    const script = `for (const p of ${JSON.stringify(wanted)}) await import(p);`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(dir, 'server/dist') });
    for (const dev of ['fastify', 'zod', 'esbuild', 'vitest', 'typescript', 'react'])
      expect(existsSync(join(dir, 'node_modules', dev)), dev).toBe(false);
  });

  it('serves the health probe, the console and the relay on SQLite, and stops cleanly', async () => {
    const { proc, url } = await start({});
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    if (existsSync(join(dir, 'web/dist')))
      expect(await (await fetch(`${url}/setup`)).text()).toContain('<div id="root">');

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
    const answer = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Invent a new holiday.' }],
    });
    expect(answer.choices[0].message.content).toContain('Galaxy Day');

    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);

  it.skipIf(!postgres.available)(
    'loads the PostgreSQL driver from the run-time packages and is ready',
    async () => {
      const made = await postgres.create();
      try {
        const { proc, url } = await start({ SQL_DSN: made.dsn });
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status, await ready.text()).toBe(200);
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        await exited;
      } finally {
        await made.drop();
      }
    },
    60_000,
  );
});
