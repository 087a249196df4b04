import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renewDueBudgets } from '../src/ledger/budget/reset-job.ts';
import { creditUser, LedgerLogType } from '../src/ledger/credit.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { ask, BUDGET_MODEL, BUDGET_PRICES, CALL_QUOTA, localText, setClock } from './support/budget-relay.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES, redisUp as redisAvailable } from './support/databases.ts';
import { startInstances } from './support/instances.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Two gateways sharing one database and one Redis keep one budget: the hold checks the period's remaining
 * budget in the same Lua step as the balances, so requests spread over both never pass it, and both renew it
 * together when the clock passes the reset.
 */
const redisUp = await redisAvailable();
const engine = DATABASES.find((d) => d.name === 'postgres' && d.available) ?? DATABASES[0];

describe.skipIf(!redisUp)(`budgets shared through Redis (${engine.name})`, () => {
  let mock: MockUpstream;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let nodes: TestServer[] = [];
  let n = 0;

  beforeAll(async () => {
    mock = await startMockUpstream();
    cluster = await startInstances(2);
    nodes = cluster.nodes;
    await nodes[0].ctx.options.set('ModelPrice', JSON.stringify(BUDGET_PRICES));
    await seedChannel(nodes[0].ctx, { baseUrl: mock.url, key: 'sk-good', models: [BUDGET_MODEL] });
    for (const node of nodes) await relayState(node.ctx).channels.reload();
    await nodes[1].ctx.options.reload();
  });
  afterAll(async () => {
    await cluster?.close();
    await mock?.close();
  });

  async function owner(token: Record<string, unknown>, quota = 100_000_000) {
    const server = { url: nodes[0].url, ctx: nodes[0].ctx } as Parameters<typeof loginAs>[0];
    const client: ConsoleClient = await loginAs(server, { username: `r${++n}${Date.now() % 1000}`, quota });
    const r = await client.post('/api/token/', { name: 'shared', unlimited_quota: true, ...token });
    expect(r.success, r.message).toBe(true);
    return { client, token: r.data[0] as { id: number; key: string }, apiKey: `sk-${r.data[0].key}` };
  }
  const flushAll = async () => {
    for (const node of nodes) await flushLedger(node.ctx);
  };
  const tokenRow = (id: number) =>
    nodes[0].ctx.db.db
      .selectFrom('tokens')
      .select(['used_quota', 'budget_used', 'budget_reset_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('300 concurrent requests over two instances never pass one daily budget, and renew it once', async () => {
    const t0 = Date.now();
    const { token, apiKey } = await owner({
      budget_quota: 40 * CALL_QUOTA + 500,
      budget_period: 'daily',
      budget_reset_time: localText(t0 + 3_600_000),
    });
    for (const node of nodes) setClock(node.ctx, t0);
    const burst = async () =>
      (await Promise.all(Array.from({ length: 300 }, (_, i) => ask(nodes[i % 2].url, apiKey)))).map(
        (r) => r.status,
      );
    const first = await burst();
    // Each instance alone would have admitted 40: together they admit 40.
    expect(first.filter((s) => s === 200)).toHaveLength(40);
    expect(first.filter((s) => s === 429)).toHaveLength(260);
    await flushAll();
    const e1 = Number((await tokenRow(token.id)).budget_reset_at);
    expect(await tokenRow(token.id)).toMatchObject({ budget_used: 40 * CALL_QUOTA });

    // Both clocks pass the reset; the master's renewal and the slave's race on the row.
    const t1 = e1 * 1000 + 2000;
    for (const node of nodes) setClock(node.ctx, t1);
    const renewed = await Promise.all(nodes.map((node) => renewDueBudgets(node.ctx, t1)));
    expect(renewed.reduce((a, b) => a + b, 0)).toBe(1);
    const second = await burst();
    expect(second.filter((s) => s === 200)).toHaveLength(40);
    await flushAll();
    const row = await tokenRow(token.id);
    expect(Number(row.budget_used)).toBe(40 * CALL_QUOTA);
    expect(Number(row.budget_reset_at)).toBeGreaterThan(e1);
    expect(Number(row.used_quota)).toBe(80 * CALL_QUOTA);
    const logs = await nodes[0].ctx.logDb.db
      .selectFrom('logs')
      .select('quota')
      .where('token_id', '=', token.id)
      .execute();
    expect(logs.reduce((s, l) => s + Number(l.quota), 0)).toBe(80 * CALL_QUOTA);
    for (const node of nodes) setClock(node.ctx, Date.now());
  });

  it('a request refused on one instance after the other spent the budget names the renewal', async () => {
    const { apiKey } = await owner({ budget_quota: 3 * CALL_QUOTA, budget_period: 'monthly' });
    for (let i = 0; i < 3; i++) expect((await ask(nodes[i % 2].url, apiKey)).status).toBe(200);
    const refused = await ask(nodes[1].url, apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'insufficient_quota', code: 'budget_exceeded' });
    expect(refused.body.error.message).toMatch(/this API key's monthly budget .* renews at /);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  });

  it('after charges are written, a console credit makes exactly the new balance spendable everywhere', async () => {
    // 5 calls' worth; spend 4 through both instances, write them, then add 3 calls' worth: 4 more fit, not 5.
    const { client, apiKey } = await owner({}, 5 * CALL_QUOTA);
    for (let i = 0; i < 4; i++) expect((await ask(nodes[i % 2].url, apiKey)).status).toBe(200);
    await flushAll();
    const me = (await client.get('/api/user/self')).data;
    await creditUser(nodes[0].ctx, {
      userId: me.id,
      delta: 3 * CALL_QUOTA,
      logType: LedgerLogType.Manage,
      content: 'an administrator added quota',
    });
    await new Promise((r) => setTimeout(r, 300));
    const statuses = (
      await Promise.all(Array.from({ length: 8 }, (_, i) => ask(nodes[i % 2].url, apiKey)))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
  });
});
