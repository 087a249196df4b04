import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditUser, LedgerLogType } from '../src/ledger/credit.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { DATABASES, redisUp as redisAvailable } from './support/databases.ts';
import { startInstances } from './support/instances.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Two gateway instances sharing one database and one Redis spend one balance: concurrent requests spread
 * over both never overdraw it, and the logs reconcile with the used quota. 164 quota per request
 * (deepseek-chat recording: (13 + 300 x 4) x 0.135 = 163.755 -> 164).
 */
const redisUp = await redisAvailable();

const engine = DATABASES.find((d) => d.name === 'postgres' && d.available) ?? DATABASES[0];

describe.skipIf(!redisUp)(`relay with shared holds in Redis (${engine.name})`, () => {
  let mock: MockUpstream;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let nodes: TestServer[] = [];

  beforeAll(async () => {
    mock = await startMockUpstream();
    cluster = await startInstances(2);
    nodes = cluster.nodes;
    await seedChannel(nodes[0].ctx, { baseUrl: mock.url, key: 'sk-good', models: ['deepseek-chat'] });
    await relayState(nodes[1].ctx).channels.reload();
  });
  afterAll(async () => {
    await cluster?.close();
    await mock?.close();
  });

  it('200 concurrent requests over two instances never overdraw one small balance', async () => {
    const START = 164 * 30 + 80;
    const user = await seedUser(nodes[0].ctx, { quota: START });
    const token = await seedToken(nodes[0].ctx, { userId: user.id, unlimited: true });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${nodes[i % 2].url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'deepseek-chat',
            max_tokens: 400,
            messages: [{ role: 'user', content: 'hi' }],
          }),
        }).then((r) => r.status),
      ),
    );
    const ok = results.filter((s) => s === 200).length;
    expect(results.every((s) => s === 200 || s === 403)).toBe(true);
    expect(ok).toBeGreaterThan(0);
    // Each instance alone would have admitted up to 30; together they must not exceed the one balance.
    expect(ok).toBeLessThanOrEqual(30);
    for (const n of nodes) await flushLedger(n.ctx);
    const { db } = nodes[0].ctx.db;
    const u = await db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    const logs = await nodes[0].ctx.logDb.db
      .selectFrom('logs')
      .select('quota')
      .where('user_id', '=', user.id)
      .execute();
    const sum = logs.reduce((s, l) => s + Number(l.quota), 0);
    expect(sum).toBe(ok * 164);
    expect(u.used_quota).toBe(sum);
    expect(u.quota).toBe(START - sum);
    expect(u.quota).toBeGreaterThanOrEqual(0);
  });

  it('a console credit on one instance is spendable at once on the other', async () => {
    const user = await seedUser(nodes[0].ctx, { quota: 400 });
    const token = await seedToken(nodes[0].ctx, { userId: user.id, unlimited: true });
    const ask = () =>
      fetch(`${nodes[1].url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'deepseek-chat',
          max_tokens: 400,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      }).then((r) => r.status);
    // Spend until the shared store (Redis) refuses: it now holds this balance, as last read.
    const statuses: number[] = [];
    for (let i = 0; i < 4 && statuses.at(-1) !== 403; i++) {
      statuses.push(await ask());
      for (const n of nodes) await flushLedger(n.ctx);
    }
    expect(statuses[0]).toBe(200);
    expect(statuses.at(-1)).toBe(403);
    await creditUser(nodes[0].ctx, {
      userId: user.id,
      delta: 100_000,
      logType: LedgerLogType.Manage,
      content: 'an administrator added quota',
    });
    await expect.poll(ask, { timeout: 5000 }).toBe(200);
  });
});
