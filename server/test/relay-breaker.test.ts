import { createServer } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { breakersFor } from '../src/relay/route/breaker/index.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import { breakerOptions, groupUser, postChat, routingGateway } from './support/routing-gateway.ts';

/**
 * The circuit breaker: a channel whose share of 5xx answers, timeouts or broken connections over the window
 * reaches the threshold leaves rotation for the cool-down, then half-open probes bring it back (or send it
 * out again). Real gateway, mock OpenAI upstream that fails a set share of requests. The breakers read a clock
 * the test moves (the cool-down ends when the test says so, not after a sleep), so a busy machine cannot make a
 * request land after the cool-down by accident.
 */
const MODEL = 'gpt-4o-mini';
const COOLDOWN_SEC = 5;

describe('channel circuit breaker', () => {
  const gw = routingGateway({ RetryTimes: '1', ...breakerOptions(COOLDOWN_SEC) });

  const ask = (apiKey: string) =>
    postChat(gw.server.url, apiKey, MODEL).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }));

  /** `n` requests one after another; their statuses. */
  async function sequential(apiKey: string, n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await ask(apiKey)).status);
    return out;
  }

  /** The channel as the console's list shows it. */
  async function listed(id: number) {
    const r = await gw.admin.get('/api/channel/?p=0&page_size=100');
    expect(r.success, r.message).toBe(true);
    return r.data.find((c: { id: number }) => c.id === id);
  }

  /** The breakers' clock: it stands still until the test moves it. */
  let clock = Date.now();
  /** Moves the clock just past `unixSec` (a cool-down's end as the list shows it). */
  const moveTo = (unixSec: number) => {
    clock = unixSec * 1000 + 50;
  };
  beforeAll(() => {
    breakersFor(gw.server.ctx).now = () => clock;
  });

  it('a channel failing half its requests leaves rotation, a failed probe sends it back out, passing probes bring it back', async () => {
    const { apiKey } = await groupUser(gw.server.ctx, 'flaky');
    gw.mock.set('sk-flaky', { failShare: 0.5 });
    const good = await seedChannel(gw.server.ctx, {
      baseUrl: gw.mock.url,
      key: 'sk-good',
      models: [MODEL],
      group: 'flaky',
    });
    const flaky = await seedChannel(gw.server.ctx, {
      baseUrl: gw.mock.url,
      key: 'sk-flaky',
      models: [MODEL],
      group: 'flaky',
    });

    // Weighted random over two equal channels; a failed attempt is retried on the other, so clients see no error.
    let statuses = await sequential(apiKey, 60);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const seen = gw.mock.count('sk-flaky');
    expect(seen).toBeGreaterThanOrEqual(10);
    const open = (await listed(flaky.id)).circuit;
    expect(open?.state).toBe('open');
    expect(open.until).toBeGreaterThan(clock / 1000);
    expect(open.until).toBeLessThanOrEqual(Math.ceil(clock / 1000) + COOLDOWN_SEC);
    expect((await listed(good.id)).circuit).toBeUndefined();

    // Out of rotation: 40 more requests while the clock stands inside the cool-down, none reaches it.
    expect(await sequential(apiKey, 40)).toEqual(Array(40).fill(200));
    expect(gw.mock.count('sk-flaky')).toBe(seen);

    // Cool-down over, still broken: the first probe fails and the channel is out for another cool-down.
    gw.mock.set('sk-flaky', { failShare: 1 });
    moveTo(open.until);
    expect((await listed(flaky.id)).circuit?.state).toBe('half_open');
    const probesBefore = gw.mock.count('sk-flaky');
    statuses = await sequential(apiKey, 20);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-flaky')).toBe(probesBefore + 1);
    const reopened = (await listed(flaky.id)).circuit;
    expect(reopened?.state).toBe('open');
    expect(reopened.until).toBeGreaterThan(open.until);

    // Recovered: after the cool-down three probes succeed and the channel takes its share again.
    gw.mock.set('sk-flaky', { failShare: 0 });
    moveTo(reopened.until);
    const before = gw.mock.count('sk-flaky');
    statuses = await sequential(apiKey, 80);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await listed(flaky.id)).circuit).toBeUndefined();
    expect(gw.mock.count('sk-flaky') - before).toBeGreaterThan(20);
  });

  it('when every channel of the request is out, it is refused at once with a 503 and the hold is returned', async () => {
    // An upstream that refuses connections: a port that was just free.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const START = 50_000_000;
    const { userId, apiKey } = await groupUser(gw.server.ctx, 'solo', START);
    const ch = await seedChannel(gw.server.ctx, {
      baseUrl: `http://127.0.0.1:${port}`,
      key: 'sk-nowhere',
      models: [MODEL],
      group: 'solo',
    });
    const failures = await sequential(apiKey, 10);
    expect(failures.every((s) => s === 502)).toBe(true);
    expect((await listed(ch.id)).circuit?.state).toBe('open');

    const r = await ask(apiKey);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('channel_circuit_open');
    expect(r.body.error.message).toMatch(/every channel for model gpt-4o-mini in group solo is paused/);
    expect(r.body.error.message).toMatch(/try again in \d+ s/);
    await flushLedger(gw.server.ctx);
    const u = await gw.server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(u.quota)).toBe(START);
    expect(Number(u.used_quota)).toBe(0);
  });

  it('an error rate of 0 turns the breaker off: a failing channel stays in rotation', async () => {
    expect((await gw.admin.put('/api/option/', { key: 'CircuitBreakerErrorRate', value: '0' })).success).toBe(
      true,
    );
    try {
      const { apiKey } = await groupUser(gw.server.ctx, 'off');
      gw.mock.set('sk-down', { failShare: 1 });
      const down = await seedChannel(gw.server.ctx, {
        baseUrl: gw.mock.url,
        key: 'sk-down',
        models: [MODEL],
        group: 'off',
      });
      await seedChannel(gw.server.ctx, { baseUrl: gw.mock.url, key: 'sk-up', models: [MODEL], group: 'off' });
      const statuses = await sequential(apiKey, 60);
      expect(statuses.every((s) => s === 200)).toBe(true);
      // About half the requests try the failing channel first; none is kept away from it.
      expect(gw.mock.count('sk-down')).toBeGreaterThan(15);
      expect((await listed(down.id)).circuit).toBeUndefined();
    } finally {
      await gw.admin.put('/api/option/', { key: 'CircuitBreakerErrorRate', value: '0.5' });
    }
  });
});
