import { ChannelType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { redisUp as redisAvailable } from './support/databases.ts';
import { type ClientFormat, formatClient } from './support/format-clients.ts';
import { startInstances } from './support/instances.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Two gateways sharing one database and Redis: fallbacks the operator sets on one instance apply on the other
 * (announced through Redis), and a model whose channels fail is answered there by its Anthropic fallback.
 */
const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('model fallbacks on two instances sharing Redis', () => {
  let chatMock: MockUpstream;
  let mock: FormatsMock;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let nodes: TestServer[] = [];
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    chatMock = await startMockUpstream();
    mock = await startFormatsMock();
    cluster = await startInstances(2);
    nodes = cluster.nodes;
    const { ctx } = nodes[0];
    await ctx.options.set('ModelRatio', JSON.stringify({ 'fbr-primary': 1, 'fbr-claude': 2 }));
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: chatMock.url,
      key: 'sk-fail500',
      models: ['fbr-primary'],
      modelMapping: { 'fbr-primary': 'gpt-4o' },
      autoBan: false,
    });
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['fbr-claude'],
      modelMapping: { 'fbr-claude': 'claude-sonnet-4-5' },
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
    await chatMock?.close();
  });

  it('an option set on one instance makes the other fall back, in every client format', async () => {
    await nodes[0].ctx.options.set(
      'model_fallbacks.models',
      JSON.stringify({ 'fbr-primary': ['fbr-claude'] }),
    );
    await expect
      .poll(() => nodes[1].ctx.options.get('model_fallbacks.models'))
      .toBe(JSON.stringify({ 'fbr-primary': ['fbr-claude'] }));
    for (const format of ['openai', 'anthropic', 'gemini', 'responses'] as ClientFormat[]) {
      const before = mock.requests.length;
      const out = await formatClient(format, nodes[1].url, apiKey).ask('fbr-primary', { stream: true });
      expect(out.text.length).toBeGreaterThan(0);
      expect(mock.requests.length).toBe(before + 1);
    }
    for (const node of nodes) await flushLedger(node.ctx);
    const rows = await nodes[0].ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .execute();
    expect(rows.map((r) => [r.model_name, JSON.parse(r.other ?? '{}').fallback_from])).toEqual(
      Array(4).fill(['fbr-claude', 'fbr-primary']),
    );
  });
});
