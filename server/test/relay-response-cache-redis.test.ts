import { randomBytes } from 'node:crypto';
import { ChannelType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseNamespace } from '../src/infra/namespace.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { RedisCacheStore } from '../src/relay/response-cache/redis-store.ts';
import { redisUp as redisAvailable } from './support/databases.ts';
import { type ClientFormat, formatClient } from './support/format-clients.ts';
import { startInstances } from './support/instances.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';
import { usageRows } from './support/usage-rows.ts';

/**
 * Two gateways sharing one database and Redis: an answer one of them kept is a hit on the other (no upstream
 * call), in every client format; the Redis store keeps its total under the size cap.
 */
const redisUp = await redisAvailable();
const MODEL = 'rc-shared-claude';

describe.skipIf(!redisUp)('response cache shared through Redis by two instances', () => {
  let mock: FormatsMock;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let nodes: TestServer[] = [];
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    mock = await startFormatsMock();
    cluster = await startInstances(2);
    nodes = cluster.nodes;
    const { ctx } = nodes[0];
    await ctx.options.set('ModelRatio', JSON.stringify({ [MODEL]: 1 }));
    await ctx.options.set('response_cache.groups', '*');
    await ctx.options.set('response_cache.hit_ratio', '0.25');
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: [MODEL],
      modelMapping: { [MODEL]: 'claude-sonnet-4-5' },
    });
    const user = await seedUser(ctx, { quota: 100_000_000 });
    userId = user.id;
    apiKey = (await seedToken(ctx, { userId, remain: 100_000_000 })).apiKey;
    for (const node of nodes) await relayState(node.ctx).channels.reload();
    await nodes[1].ctx.options.reload();
  });
  afterAll(async () => {
    await cluster?.close();
    await mock?.close();
  });

  /** Entries in the deployment's Redis index. */
  const storedEntries = () =>
    nodes[0].ctx.redis!.zcard(`modelgate:rc:${databaseNamespace(nodes[0].ctx.config)}:index`);

  for (const format of ['openai', 'anthropic', 'gemini', 'responses'] as ClientFormat[])
    for (const stream of [false, true])
      it(`${format}, ${stream ? 'streamed' : 'JSON'}: kept by one instance, a hit on the other`, async () => {
        const before = mock.requests.length;
        const entries = await storedEntries();
        const first = await formatClient(format, nodes[0].url, apiKey).ask(MODEL, { stream });
        expect(mock.requests.length).toBe(before + 1);
        // The store is written once the answer has been sent: wait for it in Redis.
        await expect.poll(storedEntries).toBe(entries + 1);
        const again = await formatClient(format, nodes[1].url, apiKey).ask(MODEL, { stream });
        expect(again).toEqual(first);
        expect(mock.requests.length).toBe(before + 1);
      });

  it('bills the hit on the other instance at the ratio', async () => {
    for (const node of nodes.slice(1)) await flushLedger(node.ctx);
    const rows = await usageRows(nodes[0].ctx, userId);
    const hits = rows.filter((r) => JSON.parse(r.other ?? '{}').response_cache_hit);
    const paid = rows.filter((r) => !JSON.parse(r.other ?? '{}').response_cache_hit);
    expect(paid).toHaveLength(8);
    expect(hits).toHaveLength(8);
    for (const hit of hits) {
      const o = JSON.parse(hit.other ?? '{}');
      expect(o.response_cache_ratio).toBe(0.25);
      const full = o.saved_quota + hit.quota;
      expect(hit.quota).toBe(Math.round(full * 0.25));
    }
  });

  it('the Redis store drops the oldest entries past its size cap', async () => {
    const redis = nodes[0].ctx.redis!;
    const store = new RedisCacheStore(redis, `test-${randomBytes(4).toString('hex')}`);
    const entry = (n: number) => ({
      contentType: 'application/json',
      body: 'x'.repeat(1000 + n),
      usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
      storedAt: Date.now(),
    });
    const cap = 3500;
    for (let i = 0; i < 5; i++) await store.set(`k${i}`, entry(i), 60_000, cap);
    const kept = [];
    for (let i = 0; i < 5; i++) kept.push((await store.get(`k${i}`)) !== undefined);
    expect(kept).toEqual([false, false, true, true, true]);
    expect((await store.get('k4'))?.body).toBe(entry(4).body);
  });
});
