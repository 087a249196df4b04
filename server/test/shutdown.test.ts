import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { freePort, waitForGateway } from './support/spawned.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * SIGTERM with an upstream that never answers: the process waits SHUTDOWN_TIMEOUT for it, then aborts the
 * call, releases its hold, flushes the batched writes of the calls that finished, and exits 0.
 */
describe('shutdown with a hung upstream', () => {
  let mock: MockUpstream;
  let hung: Server;
  const hungSockets = new Set<Socket>();
  let proc: ChildProcess;
  let output = '';
  let url = '';
  const sqlitePath = join(mkdtempSync(join(tmpdir(), 'gw-shutdown-')), 'gateway.db');
  const env = { SQLITE_PATH: sqlitePath, SESSION_SECRET: 'shutdown-test', LOG_LEVEL: 'silent' };
  let userId = 0;
  let apiKey = '';
  const START_QUOTA = 10_000_000;

  beforeAll(async () => {
    mock = await startMockUpstream();
    hung = createServer(() => {
      /* never answers */
    });
    hung.on('connection', (s) => hungSockets.add(s));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const hungUrl = `http://127.0.0.1:${(hung.address() as { port: number }).port}`;

    const ctx = await createContext(loadConfig(env), pino({ level: 'silent' }));
    userId = (await seedUser(ctx, { quota: START_QUOTA })).id;
    apiKey = (await seedToken(ctx, { userId, unlimited: true })).apiKey;
    await seedChannel(ctx, { baseUrl: mock.url, key: 'sk-good', models: ['gpt-4.1-nano-2025-04-14'] });
    await seedChannel(ctx, { baseUrl: hungUrl, key: 'sk-hung', models: ['gpt-4o'] });
    await ctx.options.set('SelfUseModeEnabled', 'true');
    await ctx.close();

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        HOST: '127.0.0.1',
        SHUTDOWN_TIMEOUT: '2',
        BATCH_UPDATE_INTERVAL: '3600',
        RELAY_TIMEOUT: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (d) => (output += d));
    proc.stderr?.on('data', (d) => (output += d));
    await waitForGateway(url, proc, () => output);
  }, 60_000);
  afterAll(async () => {
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
    for (const s of hungSockets) s.destroy();
    hung?.close();
    await mock?.close();
  });

  it('aborts the hung call at the deadline, releases its hold, flushes the finished ones and exits 0', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
    const done = await client.chat.completions.create({
      model: 'gpt-4.1-nano-2025-04-14',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(done.choices[0].message.content).toBeTruthy();

    const pending = client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 })
      .then(
        () => 'answered',
        (e: { status?: number }) => e.status ?? 'no status',
      );
    // In flight: the upstream holds it (waits on that, not on a time that a busy machine may not meet).
    await expect.poll(() => hungSockets.size, { timeout: 10_000 }).toBeGreaterThan(0);

    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - started;
    expect(code, output).toBe(0);
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(10_000);
    expect(await pending).toBe(502);

    // The batched writes reached the database: one consume row for the finished call, the hold released.
    const ctx = await createContext(loadConfig({ ...env, NODE_TYPE: 'slave' }), pino({ level: 'silent' }));
    try {
      const user = await ctx.db.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const logs = await ctx.db.db
        .selectFrom('logs')
        .select(['quota', 'model_name'])
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .execute();
      expect(logs.map((l) => l.model_name)).toEqual(['gpt-4.1-nano-2025-04-14']);
      const charged = Number(logs[0].quota);
      expect(charged).toBeGreaterThan(0);
      expect(Number(user.used_quota)).toBe(charged);
      expect(Number(user.quota)).toBe(START_QUOTA - charged);
    } finally {
      await ctx.close();
    }
  }, 30_000);
});
