import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureJson } from './support/fixtures.ts';
import { serveMock } from './support/mock-server.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The same upstream usage costs the same through every client format: a chat client on an OpenAI channel
 * (bytes relayed as they come) and an Anthropic client converted to it are billed from one usage reader,
 * cache writes and reasoning tokens included.
 */
const USAGE = {
  prompt_tokens: 1000,
  completion_tokens: 200,
  total_tokens: 1200,
  prompt_tokens_details: { cached_tokens: 300 },
  completion_tokens_details: { reasoning_tokens: 50 },
  // Gateways serving Claude behind OpenAI's API report cache writes so.
  cache_creation_input_tokens: 100,
};

describe('one usage reader', () => {
  let server: TestServer;
  let upstream: Awaited<ReturnType<typeof serveMock>>;
  let apiKey = '';
  let userId = 0;

  beforeAll(async () => {
    const answer = fixtureJson('openai/chat/text.json');
    upstream = await serveMock(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...answer, usage: USAGE }));
    });
    server = await startServer();
    await seedChannel(server.ctx, { baseUrl: upstream.url, key: 'sk-x', models: ['gpt-4o'] });
    const user = await seedUser(server.ctx, { quota: 10_000_000 });
    userId = user.id;
    apiKey = (await seedToken(server.ctx, { userId, unlimited: true })).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });

  it('bills a chat client and an Anthropic client the same for the same upstream usage', async () => {
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    const claude = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(claude.status).toBe(200);
    await flushLedger(server.ctx);
    const rows = await server.ctx.logDb.db
      .selectFrom('logs')
      .select(['quota', 'prompt_tokens', 'completion_tokens', 'other'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(2);
    const [a, b] = rows.map((r) => ({ ...r, other: JSON.parse(String(r.other)) }));
    expect(a.quota).toBe(b.quota);
    for (const r of [a, b]) {
      expect(r.prompt_tokens).toBe(1000);
      expect(r.completion_tokens).toBe(200);
      expect(r.other.cache_tokens).toBe(300);
      expect(r.other.cache_creation_tokens).toBe(100);
      expect(r.other.reasoning_tokens).toBe(50);
    }
  });
});
