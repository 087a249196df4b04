import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { BUDGET_MODEL, BUDGET_PRICES, CALL_QUOTA } from './support/budget-relay.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Budget fields in the console API: checked when saved (nothing written on a refusal) and shown in the lists. */
describe('budgets in the console API', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  let alice: ConsoleClient;
  let aliceId: number;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '0.1' } });
    await server.ctx.options.set('ModelPrice', JSON.stringify(BUDGET_PRICES));
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [BUDGET_MODEL] });
    await relayState(server.ctx).channels.reload();
    admin = await loginAs(server, { username: 'budgetadmin', role: Role.Admin });
    alice = await loginAs(server, { username: 'budgetalice', quota: 10_000_000 });
    aliceId = (await alice.get('/api/user/self')).data.id;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  const BAD: Array<[Record<string, unknown>, RegExp]> = [
    [{ budget_quota: -1, budget_period: 'daily' }, /budget_quota cannot be negative/],
    [{ budget_quota: 1.5, budget_period: 'daily' }, /budget_quota must be a whole number/],
    [{ budget_quota: '100', budget_period: 'daily' }, /budget_quota must be a whole number/],
    // What the console's number field lets through: a whole number past 2^53.
    [{ budget_quota: 1e20, budget_period: 'daily' }, /budget_quota is too large/],
    [
      { budget_quota: 100, budget_period: 'hourly' },
      /budget_period must be one of daily, weekly, monthly, custom/,
    ],
    [{ budget_quota: 100 }, /budget_period must be one of .* when budget_quota is set/],
    [
      { budget_quota: 100, budget_period: 'custom' },
      /budget_period_days must be a whole number of days from 1/,
    ],
    [{ budget_quota: 100, budget_period: 'custom', budget_period_days: 4000 }, /at most 3650/],
    [{ budget_quota: 100, budget_period: 'daily', budget_reset_time: '25:00' }, /budget_reset_time must be/],
    [{ budget_quota: 100, budget_period: 'daily', budget_reset_time: 'noon' }, /budget_reset_time must be/],
    [
      { budget_quota: 100, budget_period: 'monthly', budget_reset_time: '2025-02-30 00:00' },
      /budget_reset_time must be/,
    ],
  ];

  it('refuses a bad budget on a new token with a 400 and creates nothing', async () => {
    const count = async () => (await alice.get('/api/token/?p=0&size=100')).data.length;
    const before = await count();
    for (const [fields, message] of BAD) {
      const r = await alice.post('/api/token/', { name: 'bad', ...fields });
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(r.message).toMatch(message);
    }
    expect(await count()).toBe(before);
  });

  it('refuses a bad budget on a token update and on a user, changing nothing', async () => {
    const made = await alice.post('/api/token/', { name: 'kept', budget_reset_time: '2025-01-06 09:00' });
    const token = made.data[0];
    for (const [fields, message] of BAD) {
      const r = await alice.put('/api/token/', { id: token.id, name: 'renamed', ...fields });
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(r.message).toMatch(message);
      const u = await admin.put('/api/user/', { id: aliceId, display_name: 'changed', ...fields });
      expect(u.status, JSON.stringify(fields)).toBe(400);
      expect(u.message).toMatch(message);
    }
    const after = (await alice.get(`/api/token/${token.id}`)).data;
    expect(after).toMatchObject({
      name: 'kept',
      budget_quota: 0,
      budget_period: '',
      budget_reset_time: '2025-01-06 09:00',
    });
    const user = (await admin.get(`/api/user/${aliceId}`)).data;
    expect(user.display_name).not.toBe('changed');
    expect(user.budget_quota).toBe(0);
    // A user cannot give themselves a budget (or remove one) through their own profile.
    await alice.put('/api/user/self', { display_name: 'alice', budget_quota: 1, budget_period: 'daily' });
    expect((await alice.get('/api/user/self')).data.budget_quota).toBe(0);
  });

  it('stores the reset time with its date, renews at it, and keeps the spend while the period stays', async () => {
    const r = await alice.post('/api/token/', {
      name: 'seven-thirty',
      unlimited_quota: true,
      budget_quota: 10 * CALL_QUOTA,
      budget_period: 'daily',
      budget_reset_time: '07:30',
    });
    const token = r.data[0];
    expect(token.budget_reset_time).toMatch(/^\d{4}-\d\d-\d\d 07:30$/);
    const renews = new Date(token.budget_renews_at * 1000);
    expect([renews.getHours(), renews.getMinutes()]).toEqual([7, 30]);
    expect(token.budget_renews_at * 1000 - Date.now()).toBeGreaterThan(0);
    expect(token.budget_renews_at * 1000 - Date.now()).toBeLessThanOrEqual(86_400_000);

    const apiKey = `sk-${token.key}`;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: BUDGET_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
    }
    await flushLedger(server.ctx);
    const listed = async () =>
      (await alice.get('/api/token/?p=0&size=100')).data.find((t: { id: number }) => t.id === token.id);
    expect(await listed()).toMatchObject({ budget_used: 3 * CALL_QUOTA });
    // A new amount, same period: what was spent stays spent.
    await alice.put('/api/token/', { id: token.id, budget_quota: 4 * CALL_QUOTA });
    expect(await listed()).toMatchObject({ budget_quota: 4 * CALL_QUOTA, budget_used: 3 * CALL_QUOTA });
    const one = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: BUDGET_MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(one.status).toBe(200);
    // A period that ends at another time starts afresh. (Its own reset time: before 07:30 a 3-day period
    // anchored at today's 07:30 would end exactly when the daily one does, and rightly keep the spend.)
    await alice.put('/api/token/', {
      id: token.id,
      budget_period: 'custom',
      budget_period_days: 3,
      budget_reset_time: '19:45',
    });
    expect(await listed()).toMatchObject({ budget_period: 'custom', budget_period_days: 3, budget_used: 0 });
    // No budget at all: 0 clears it.
    await alice.put('/api/token/', { id: token.id, budget_quota: 0 });
    expect(await listed()).toMatchObject({ budget_quota: 0, budget_used: 0, budget_renews_at: 0 });
  });

  it("refuses a spent budget in the caller's protocol: OpenAI, Anthropic and Gemini", async () => {
    const r = await alice.post('/api/token/', {
      name: 'protocols',
      unlimited_quota: true,
      budget_quota: CALL_QUOTA,
      budget_period: 'monthly',
    });
    const key = `sk-${r.data[0].key}`;
    const openai = (body: unknown) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await openai({ model: BUDGET_MODEL, messages: [{ role: 'user', content: 'hi' }] })).status).toBe(
      200,
    );

    const o = await openai({ model: BUDGET_MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(o.status).toBe(429);
    expect(Number(o.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(o.headers.get('x-should-retry')).toBe('false');
    const ob = (await o.json()) as any;
    expect(ob.error).toMatchObject({ type: 'insufficient_quota', code: 'budget_exceeded', param: null });
    expect(ob.error.message).toMatch(/monthly budget of .* is used up; it renews at \d{4}-\d\d-\d\d 00:00/);

    const a = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: BUDGET_MODEL,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe(o.headers.get('retry-after'));
    const ab = (await a.json()) as any;
    expect(ab.type).toBe('error');
    // A budget renews: Anthropic's SDK retries a rate_limit_error when told to, never a billing_error.
    expect(ab.error.type).toBe('rate_limit_error');
    expect(ab.error.message).toMatch(/budget of .* renews at/);

    const g = await fetch(`${server.url}/v1beta/models/${BUDGET_MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(g.status).toBe(429);
    expect(g.headers.get('retry-after')).not.toBeNull();
    const gb = (await g.json()) as any;
    expect(gb.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(gb.error.message).toMatch(/renews at/);
  });

  it('shows the budget, the spend and the renewal in the admin user list', async () => {
    const r = await admin.put('/api/user/', {
      id: aliceId,
      budget_quota: 50 * CALL_QUOTA,
      budget_period: 'monthly',
      budget_reset_time: '2025-01-01 00:00',
    });
    expect(r.success, r.message).toBe(true);
    const list = await admin.get('/api/user/search?keyword=budgetalice');
    const row = list.data.items[0];
    expect(row).toMatchObject({ budget_quota: 50 * CALL_QUOTA, budget_period: 'monthly', budget_used: 0 });
    const renews = new Date(row.budget_renews_at * 1000);
    expect([renews.getDate(), renews.getHours(), renews.getMinutes()]).toEqual([1, 0, 0]);
    expect(row.budget_reset_at).toBeUndefined();
  });
});
