import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChatStream } from './support/chat-stream.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser, settledLogs } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The streaming policy (README, "Streaming and billing policy"): a client that leaves mid-stream and an
 * upstream that dies mid-stream are both billed for what was produced, exactly once, never zero for work done.
 */
describe('relay: streaming policy', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let userId: number;
  let apiKey: string;
  const MODEL = 'gpt-4.1-nano-2025-04-14';

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, remain: 10_000_000 })).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  const logsFor = (requestId: string) => settledLogs(server.ctx, requestId);

  const streamRequest = (model: string, extra: object = {}, signal?: AbortSignal) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'Invent a new holiday.' }],
        ...extra,
      }),
      signal,
    });

  it('bills a client that disconnects mid-stream for the tokens produced, once', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    mock.chunkDelayMs = 5;
    const controller = new AbortController();
    const res = await streamRequest(MODEL, {}, controller.signal);
    const requestId = res.headers.get('x-oneapi-request-id') as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    while (received.split('data: ').length < 40)
      received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await new Promise((r) => setTimeout(r, 300));
    mock.chunkDelayMs = 0;
    const rows = await logsFor(requestId);
    expect(rows).toHaveLength(1);
    const log = rows[0];
    // Counted locally from what was sent: some, but not all 300 completion tokens of the recording.
    expect(log.completion_tokens).toBeGreaterThan(10);
    expect(log.completion_tokens).toBeLessThan(300);
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log.quota).toBeGreaterThan(0);
    expect(log.content).toContain('client disconnected');
  });

  it('bills an upstream that fails mid-stream for what it produced, and tells the client', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-midstream', models: ['gpt-4o'] });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { text, err, requestId } = await readChatStream(client, 'gpt-4o');
    expect(err).toBeInstanceOf(Error);
    const rows = await logsFor(requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0].completion_tokens).toBeGreaterThan(0);
    expect(rows[0].quota).toBeGreaterThan(0);
    expect(rows[0].content).toContain('upstream failed mid-stream');
    expect(text.length).toBeGreaterThan(0);
  });

  it('tells the client when a relayed stream ends with neither a finish nor [DONE], and notes it', async () => {
    // Before one path served every format, the OpenAI-only relay closed such a stream with [DONE] as if whole.
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-truncated', models: ['gpt-4o-mini'] });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { text, err, requestId } = await readChatStream(client, 'gpt-4o-mini');
    expect(err).toBeInstanceOf(Error);
    expect(text.length).toBeGreaterThan(0);
    const [log] = await logsFor(requestId);
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.content).toContain('upstream failed mid-stream');
  });

  it('counts a usage-less stream locally and sends the usage chunk the client asked for', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-nousage', models: ['deepseek-chat'] });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'deepseek-chat',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      })
      .withResponse();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.completion_tokens).toBeGreaterThan(300);
    const [log] = await logsFor(response.headers.get('x-oneapi-request-id') as string);
    expect(log.prompt_tokens).toBe(usage?.prompt_tokens);
    expect(log.completion_tokens).toBe(usage?.completion_tokens);
    // deepseek-chat: ratio 0.135, completion ratio 4, rounded half away from zero
    const P = usage?.prompt_tokens ?? 0;
    const C = usage?.completion_tokens ?? 0;
    expect(log.quota).toBe(Math.round(((P * 1000 + C * 4000) * 135) / 1_000_000));
  });

  it('retries on another channel when a stream fails before its first event', async () => {
    await server.ctx.options.set('RetryTimes', '1');
    const bad = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-streamerr',
      models: ['grok-3-mini'],
      priority: 5,
    });
    const good = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good-x',
      models: ['grok-3-mini'],
      priority: 0,
    });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'grok-3-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    const [log] = await logsFor(response.headers.get('x-oneapi-request-id') as string);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(bad.id), String(good.id)]);
    await server.ctx.options.set('RetryTimes', '0');
  });

  it('sends keep-alive pings while the upstream is silent when the option is on', async () => {
    await server.ctx.options.set('general_setting.ping_interval_enabled', 'true');
    await server.ctx.options.set('general_setting.ping_interval_seconds', '1');
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-slowstart',
      models: ['mistral-small-latest'],
    });
    const res = await streamRequest('mistral-small-latest');
    const text = await res.text();
    expect(text.indexOf(': PING')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(': PING')).toBeLessThan(text.indexOf('data: {'));
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await server.ctx.options.set('general_setting.ping_interval_enabled', 'false');
  });
});
