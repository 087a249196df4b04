import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureText, type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Channel setting thinking_to_content: a reasoning stream reaches the client as content inside <think> tags. */
describe('relay: thinking_to_content channel setting', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let client: OpenAI;

  // What the recorded DeepSeek reasoner stream says, read from the recording itself.
  const recorded = fixtureText('deepseek/chat/reasoning.chunks.txt')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const joined = (field: 'reasoning_content' | 'content') =>
    recorded.map((c) => c.choices?.[0]?.delta?.[field] ?? '').join('');

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    const { apiKey } = await seedToken(server.ctx, { userId, remain: 100_000_000 });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: ['deepseek-reasoner'],
      setting: { thinking_to_content: true },
    });
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('wraps the reasoning in <think> as content and drops the reasoning fields', async () => {
    expect(joined('reasoning_content').length).toBeGreaterThan(10);
    expect(joined('content').length).toBeGreaterThan(10);
    const stream = await client.chat.completions.create({
      model: 'deepseek-reasoner',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let content = '';
    let reasoningFields = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
      if (delta && ('reasoning_content' in delta || 'reasoning' in delta)) reasoningFields++;
      content += (delta?.content as string | undefined) ?? '';
    }
    expect(reasoningFields).toBe(0);
    expect(content).toBe(`<think>\n${joined('reasoning_content')}\n</think>\n${joined('content')}`);
  });
});
