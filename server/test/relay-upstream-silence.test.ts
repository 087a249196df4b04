import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChatStream } from './support/chat-stream.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser, settledLogs } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * STREAMING_TIMEOUT: how long a streamed call's upstream may stay silent, before its headers and between its
 * chunks (README, "Streaming and billing policy"). Two seconds here, against a mock upstream that goes quiet.
 */
describe('relay: an upstream that goes silent', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600', STREAMING_TIMEOUT: '2' } });
    const userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, remain: 10_000_000 })).apiKey;
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('ends a stream that stops mid-way after STREAMING_TIMEOUT, billing what it produced', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-stall', models: ['gpt-4o'] });
    const started = Date.now();
    const { text, err, requestId } = await readChatStream(client, 'gpt-4o');
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(Error);
    expect(text.length).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(4000);
    const rows = await settledLogs(server.ctx, requestId);
    expect(rows).toHaveLength(1);
    const log = rows[0];
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.quota).toBeGreaterThan(0);
    expect(log.content).toContain('upstream failed mid-stream');
  });

  it('answers 504 when a streamed call hears nothing at all for STREAMING_TIMEOUT', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-timeout', models: ['gpt-4o-mini'] });
    const started = Date.now();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const took = Date.now() - started;
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('upstream timed out');
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(4000);
  });

  it('lets a stream whose upstream is silent for less than STREAMING_TIMEOUT finish', async () => {
    // 1.5 s of silence before the first chunk.
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-slowstart',
      models: ['mistral-small-latest'],
    });
    const stream = await client.chat.completions.create({
      model: 'mistral-small-latest',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe('stop');
  });
});
