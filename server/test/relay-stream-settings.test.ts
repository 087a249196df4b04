import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureChunks } from './support/fixtures.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { fixtureText, type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Channel settings that rewrite streams: thinking_to_content and force_format. */
describe('relay: stream-rewriting channel settings', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let formats: FormatsMock;
  let client: OpenAI;
  let apiKey: string;

  // What the recorded DeepSeek reasoner stream says, read from the recording itself.
  const chunksOf = (rel: string) =>
    fixtureText(rel)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  const recorded = chunksOf('deepseek/chat/reasoning.chunks.txt');
  const joined = (field: 'reasoning_content' | 'content') =>
    recorded.map((c) => c.choices?.[0]?.delta?.[field] ?? '').join('');

  beforeAll(async () => {
    mock = await startMockUpstream();
    formats = await startFormatsMock();
    server = await startServer();
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    ({ apiKey } = await seedToken(server.ctx, { userId, remain: 100_000_000 }));
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: ['deepseek-reasoner'],
      setting: { thinking_to_content: true },
    });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: ['grok-3-mini'],
      setting: { force_format: true },
    });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: ['mistral-small-latest'] });
    await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: formats.url,
      key: 'sk-ant-mock',
      models: ['claude-sonnet-4-5-20250929'],
      setting: { thinking_to_content: true },
    });
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await formats?.close();
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

  it('wraps the reasoning in <think> for a chat client served by an Anthropic channel too', async () => {
    const events = fixtureChunks('anthropic/messages/thinking.chunks.txt').map((c) => JSON.parse(c));
    const said = (kind: string, field: string) =>
      events
        .filter((e) => e.type === 'content_block_delta' && e.delta.type === kind)
        .map((e) => e.delta[field])
        .join('');
    expect(said('thinking_delta', 'thinking').length).toBeGreaterThan(10);
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4-5-20250929',
      messages: [{ role: 'user', content: 'hi' }],
      reasoning_effort: 'high',
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
    expect(content).toBe(
      `<think>\n${said('thinking_delta', 'thinking')}\n</think>\n${said('text_delta', 'text')}`,
    );
  });

  /** The data events of a streamed chat, as the client receives them on the wire. */
  async function rawEvents(model: string): Promise<any[]> {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.status).toBe(200);
    return (await res.text())
      .split('\n\n')
      .map((e) => e.replace(/^data: /, '').trim())
      .filter((e) => e && e !== '[DONE]')
      .map((e) => JSON.parse(e));
  }

  it('re-serialises chunks in OpenAI shape with force_format, and forwards them untouched without it', async () => {
    // The recorded xAI chunks have no finish_reason or logprobs until the end.
    const xai = chunksOf('xai/chat/text.chunks.txt');
    expect(xai.some((c) => !('finish_reason' in c.choices[0]))).toBe(true);
    const forced = await rawEvents('grok-3-mini');
    const withChoices = forced.filter((c) => c.choices.length > 0);
    expect(withChoices.length).toBeGreaterThan(3);
    for (const c of withChoices) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(Object.keys(c.choices[0]).sort()).toEqual(['delta', 'finish_reason', 'index', 'logprobs']);
    }
    const said = (chunks: any[]) => chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
    expect(said(forced)).toBe(said(xai));
    // Without the setting the gateway forwards each event exactly as the upstream wrote it.
    const plain = await rawEvents('mistral-small-latest');
    const mistral = chunksOf('mistral/chat/text.chunks.txt');
    expect(plain.filter((c) => c.choices.length > 0)).toEqual(mistral.filter((c) => c.choices.length > 0));
  });
});
