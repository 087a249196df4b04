import { Role } from '@modelgate/shared';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { breakersFor } from '../src/relay/route/breaker/index.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES, REDIS_URL, redisUp as redisAvailable } from './support/databases.ts';
import { type FlakyUpstream, startFlakyUpstream } from './support/mock-flaky.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { chatStatus } from './support/routing-gateway.ts';
import type { TestServer } from './support/server.ts';

/**
 * Circuit breaker state shared through Redis: a channel one instance takes out of rotation is out on every
 * instance (and on one that starts later), and when probes on another instance bring it back, the first
 * follows. Two or three gateways on one database (PostgreSQL when reachable) and one Redis. Their breakers read
 * one clock that moves only when the test moves it, so the cool-down ends when the test says, not when a slow
 * machine gets there.
 */
const redisUp = await redisAvailable();
const engine = DATABASES.find((d) => d.name === 'postgres' && d.available) ?? DATABASES[0];
const MODEL = 'gpt-4o-mini';

/** The breakers' clock (epoch ms). */
let clock = Date.now();

describe.skipIf(!redisUp)(`circuit breakers shared through Redis (${engine.name})`, () => {
  let mock: FlakyUpstream;
  let made: Awaited<ReturnType<typeof engine.create>>;
  const nodes: Array<TestServer & { admin: ConsoleClient }> = [];

  async function startNode(master: boolean) {
    const config = loadConfig({
      SQL_DSN: made.dsn,
      SQLITE_PATH: made.sqlitePath,
      SESSION_SECRET: 'test-session-secret',
      REDIS_CONN_STRING: REDIS_URL,
      BATCH_UPDATE_INTERVAL: '0.2',
      LOG_LEVEL: 'silent',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      CRITICAL_RATE_LIMIT: '100000',
      NODE_TYPE: master ? 'master' : 'slave',
    });
    const ctx: AppContext = await createContext(config, pino({ level: 'silent' }));
    breakersFor(ctx).now = () => clock;
    const app = await buildApp(ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const node = {
      url: `http://127.0.0.1:${port}`,
      app,
      ctx,
      close: async () => {
        await app.close();
        await ctx.close();
      },
    } as TestServer & { admin: ConsoleClient };
    nodes.push(node);
    return node;
  }

  const ask = (node: TestServer, apiKey: string) => chatStatus(node.url, apiKey, MODEL);
  /** Requests one at a time until `done()`, at most `max` of them; their statuses. */
  async function sequentialUntil(node: TestServer, apiKey: string, done: () => boolean, max: number) {
    const out: number[] = [];
    while (!done() && out.length < max) out.push(await ask(node, apiKey));
    return out;
  }
  const parallel = (node: TestServer, apiKey: string, n: number) =>
    Promise.all(Array.from({ length: n }, () => ask(node, apiKey)));
  /** The breaker of a channel in an instance's memory (what its console list shows). */
  const breakerOf = (node: TestServer, id: number) => breakersFor(node.ctx).circuit(id);
  /** The breaker of a channel as an instance's console list shows it. */
  async function circuitOn(node: TestServer & { admin: ConsoleClient }, id: number) {
    const r = await node.admin.get('/api/channel/?p=0&page_size=100');
    expect(r.success, r.message).toBe(true);
    return r.data.find((c: { id: number }) => c.id === id)?.circuit;
  }

  beforeAll(async () => {
    mock = await startFlakyUpstream();
    made = await engine.create({ migrated: true });
    const first = await startNode(true);
    first.admin = await loginAs(first, { username: 'admin', role: Role.Admin });
    const second = await startNode(false);
    second.admin = new ConsoleClient(second.url);
    expect((await second.admin.login('admin', 'password123')).success).toBe(true);
    for (const [key, value] of [
      ['RetryTimes', '1'],
      ['CircuitBreakerMinRequests', '10'],
      ['CircuitBreakerErrorRate', '0.5'],
      ['CircuitBreakerCooldownSeconds', '3'],
      ['CircuitBreakerProbeRequests', '2'],
    ])
      expect((await first.admin.put('/api/option/', { key, value })).success).toBe(true);
    await vi.waitFor(() => expect(second.ctx.options.get('CircuitBreakerProbeRequests')).toBe('2'), {
      timeout: 10_000,
    });
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await made?.drop();
    await mock?.close();
  });

  // Starts a third gateway and logs in to it midway: on a machine shared with other test runs that alone can
  // take most of the default 30 s, so the limit is the test's own. Every wait inside is on a state.
  it('one instance opens the breaker, the others (and a later one) keep the channel out; probes elsewhere close it everywhere', {
    timeout: 120_000,
  }, async () => {
    const [a, b] = nodes;
    mock.set('sk-flaky', { failShare: 0.5 });
    await seedChannel(a.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    const flaky = await seedChannel(a.ctx, { baseUrl: mock.url, key: 'sk-flaky', models: [MODEL] });
    await relayState(b.ctx).channels.reload();
    const user = await seedUser(a.ctx, { quota: 1e12 });
    const { apiKey } = await seedToken(a.ctx, { userId: user.id, unlimited: true });

    // Only instance A sees the failures: it opens after 10 attempts on the channel, half of them failed.
    const opening = await sequentialUntil(a, apiKey, () => breakerOf(a, flaky.id)?.state === 'open', 60);
    expect(opening.every((s) => s === 200)).toBe(true);
    const open = await circuitOn(a, flaky.id);
    expect(open?.state).toBe('open');
    await expect.poll(() => circuitOn(b, flaky.id)).toEqual(open);

    // B never tried the channel, yet keeps it out of rotation.
    const seen = mock.count('sk-flaky');
    expect((await parallel(b, apiKey, 40)).every((s) => s === 200)).toBe(true);
    expect(await circuitOn(b, flaky.id)).toEqual(open);
    expect(mock.count('sk-flaky')).toBe(seen);

    // An instance that starts now reads the open breaker from Redis.
    const c = await startNode(false);
    c.admin = new ConsoleClient(c.url);
    expect((await c.admin.login('admin', 'password123')).success).toBe(true);
    await expect.poll(() => circuitOn(c, flaky.id)).toEqual(open);

    // Recovered upstream: B's probes pass after the cool-down and A follows without probing itself.
    mock.set('sk-flaky', { failShare: 0 });
    clock = open.until * 1000 + 50;
    const probing = await sequentialUntil(b, apiKey, () => breakerOf(b, flaky.id) === undefined, 30);
    expect(probing.every((s) => s === 200)).toBe(true);
    expect(await circuitOn(b, flaky.id)).toBeUndefined();
    await expect.poll(() => circuitOn(a, flaky.id)).toBeUndefined();
    await expect.poll(() => circuitOn(c, flaky.id)).toBeUndefined();
    const back = mock.count('sk-flaky');
    expect((await parallel(a, apiKey, 40)).every((s) => s === 200)).toBe(true);
    expect(mock.count('sk-flaky') - back).toBeGreaterThan(8);
  });
});
