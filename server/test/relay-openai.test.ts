import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The OpenAI endpoints through the gateway with the official client, against a mock upstream that replays
 * the recorded provider responses. Each case checks the answer, the usage log row and the quota charged,
 * worked out by hand from the recorded usage and the built-in prices (ratio 1 = $0.002 / 1K tokens).
 */
describe('relay: OpenAI endpoints', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let client: OpenAI;
  let userId: number;
  let tokenId: number;
  const START = 10_000_000;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const ctx = server.ctx;
    const user = await seedUser(ctx, { quota: START });
    userId = user.id;
    const token = await seedToken(ctx, { userId, remain: START });
    tokenId = token.id;
    await seedChannel(ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-good',
      models: [
        'gpt-4.1-nano-2025-04-14',
        'gpt-4o',
        'deepseek-chat',
        'grok-3-mini',
        'mistral-small-latest',
        'text-embedding-3-small',
        'dall-e-3',
        'tts-1',
        'whisper-1',
        'omni-moderation-latest',
        'jina-reranker-v2-base-multilingual',
      ],
    });
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  async function logOf(requestId: string | null) {
    await flushLedger(server.ctx);
    expect(requestId).toBeTruthy();
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('request_id', '=', requestId as string)
      .executeTakeFirstOrThrow();
  }

  async function balances() {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    return { user: u, token: t };
  }

  it('relays a plain chat completion and charges the recorded usage to the unit', async () => {
    const before = await balances();
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [{ role: 'user', content: 'Invent a new holiday.' }],
      })
      .withResponse();
    expect(data.choices[0].message.content).toContain('Galaxy Day');
    expect(data.usage?.completion_tokens).toBe(363);
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    // (16 prompt + 363 completion x 4) x 0.05 = 73.4 -> 73
    expect(log.quota).toBe(73);
    expect(log.prompt_tokens).toBe(16);
    expect(log.completion_tokens).toBe(363);
    expect(log.type).toBe(2);
    expect(log.is_stream).toBe(0);
    expect(log.model_name).toBe('gpt-4.1-nano-2025-04-14');
    const other = JSON.parse(log.other);
    expect(other).toMatchObject({
      model_ratio: 0.05,
      completion_ratio: 4,
      group_ratio: 1,
      model_price: -1,
      cache_tokens: 0,
      cache_ratio: 0.25,
    });
    expect(other.admin_info.use_channel).toHaveLength(1);
    const after = await balances();
    expect(before.user.quota - after.user.quota).toBe(73);
    expect(after.user.used_quota - before.user.used_quota).toBe(73);
    expect(after.user.request_count - before.user.request_count).toBe(1);
    expect(before.token.remain_quota - after.token.remain_quota).toBe(73);
    expect(after.token.used_quota - before.token.used_quota).toBe(73);
  });

  it('bills DeepSeek, xAI (reasoning and cached tokens) and Mistral recordings by the formula', async () => {
    const cases: Array<[string, number, number, number]> = [
      // (13 + 300 x 4) x 0.135 = 163.755 -> 164
      ['deepseek-chat', 164, 13, 300],
      // xAI counts 228 reasoning tokens only in total_tokens (241): completion = 241 - 12 = 229; 2 of 12 prompt tokens cached.
      // (10 + 2 x 0.25 + 229 x 1.6667) x 0.15 = 58.826... -> 59
      ['grok-3-mini', 59, 12, 229],
      // (13 + 434 x 3) x 0.05 = 65.75 -> 66
      ['mistral-small-latest', 66, 13, 434],
    ];
    for (const [model, quota, prompt, completion] of cases) {
      const { response } = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      const log = await logOf(response.headers.get('x-oneapi-request-id'));
      expect({
        model,
        quota: log.quota,
        prompt: log.prompt_tokens,
        completion: log.completion_tokens,
      }).toEqual({ model, quota, prompt, completion });
    }
  });

  it('streams chunk by chunk, asks upstream for usage, and hides the usage chunk the client did not ask for', async () => {
    mock.requests.length = 0;
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1-nano-2025-04-14',
      stream: true,
      messages: [{ role: 'user', content: 'Invent a new holiday.' }],
    });
    let text = '';
    let chunks = 0;
    let sawUsage = false;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(chunks).toBeGreaterThan(290);
    expect(text.length).toBeGreaterThan(500);
    expect(sawUsage).toBe(false);
    expect(mock.requests[0].body.stream_options).toEqual({ include_usage: true });
    const rows = await server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    await flushLedger(server.ctx);
    const log = await server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.id).not.toBe(rows[0]?.id);
    // (16 + 300 x 4) x 0.05 = 60.8 -> 61
    expect(log.quota).toBe(61);
    expect(log.is_stream).toBe(1);
    expect(log.first_time).toBeGreaterThan(0);
  });

  it('streams tool calls and passes the usage chunk through when the client asks for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'What is the weather in Berlin?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
    });
    let usage: OpenAI.CompletionUsage | undefined;
    let toolName = '';
    let args = '';
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const call = chunk.choices[0]?.delta?.tool_calls?.[0];
      if (call?.function?.name) toolName = call.function.name;
      args += call?.function?.arguments ?? '';
    }
    expect(toolName).not.toBe('');
    expect(args.length).toBeGreaterThan(0);
    expect(usage).toMatchObject({ prompt_tokens: 58, completion_tokens: 12 });
    await flushLedger(server.ctx);
    const log = await server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // (58 + 12 x 4) x 1.25 = 132.5 -> 133 (half away from zero)
    expect(log.quota).toBe(133);
  });

  it('relays tool calls without streaming (Mistral recording)', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'mistral-small-latest',
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [
          { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } },
        ],
      })
      .withResponse();
    expect(data.choices[0].message.tool_calls?.length).toBeGreaterThan(0);
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    // (124 + 22 x 3) x 0.05 = 9.5 -> 10
    expect(log.quota).toBe(10);
  });

  it('accepts vision content parts', async () => {
    const { data } = await client.chat.completions
      .create({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this image?' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            ],
          },
        ],
      })
      .withResponse();
    expect(data.choices[0].message.content).toBeTruthy();
    const sent = mock.requests.at(-1)?.body;
    expect(sent.messages[0].content[1].type).toBe('image_url');
  });

  it('relays embeddings (charged at least 1 quota)', async () => {
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: ['hello world', 'goodbye'] })
      .withResponse();
    expect(data.data).toHaveLength(2);
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    // mock usage: 3 + 2 = 5 tokens x 0.01 = 0.05 -> rounds to 0, raised to the minimum of 1
    expect(log.prompt_tokens).toBe(5);
    expect(log.quota).toBe(1);
  });

  it('relays image generation at the per-image price', async () => {
    const { data, response } = await client.images
      .generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1024x1792', quality: 'hd' })
      .withResponse();
    expect(data.data?.[0].url).toBe('https://example.com/image.png');
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    // $0.04 x 2 (tall) x 1.5 (hd at a tall size) x 1 image x 500000 = 60000
    expect(log.quota).toBe(60000);
  });

  it('passes speech audio through byte for byte', async () => {
    const res = await client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: 'Hello world!' })
      .asResponse();
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 3).toString()).toBe('ID3');
    const log = await logOf(res.headers.get('x-oneapi-request-id'));
    // 12 characters x 7.5 = 90
    expect(log.prompt_tokens).toBe(12);
    expect(log.quota).toBe(90);
  });

  it('relays a multipart transcription billed by duration', async () => {
    mock.requests.length = 0;
    const file = await toFile(Buffer.from('RIFF....WAVEfmt fake audio'), 'hello.wav', { type: 'audio/wav' });
    const { data, response } = await client.audio.transcriptions
      .create({ model: 'whisper-1', file })
      .withResponse();
    expect(data.text).toBe('Hello from the recording.');
    expect(String(mock.requests[0].headers['content-type'])).toContain('multipart/form-data');
    expect(mock.requests[0].raw.toString()).toContain('fake audio');
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    // 3.2 s -> 4 s -> 4/60 x 1000 = 66.7 -> 67 tokens x 15 = 1005
    expect(log.prompt_tokens).toBe(67);
    expect(log.quota).toBe(1005);
  });

  it('relays moderations, counting tokens locally when upstream reports none', async () => {
    const { data, response } = await client.moderations
      .create({ model: 'omni-moderation-latest', input: 'I like kittens' })
      .withResponse();
    expect(data.results[0].flagged).toBe(false);
    const log = await logOf(response.headers.get('x-oneapi-request-id'));
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log.quota).toBe(0); // ratio 0: free
  });

  it('relays rerank', async () => {
    const res = await fetch(`${server.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'jina-reranker-v2-base-multilingual',
        query: 'organic skincare',
        documents: ['a', 'b'],
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[] };
    expect(body.results).toHaveLength(2);
    const log = await logOf(res.headers.get('x-oneapi-request-id'));
    // 38 tokens x 0.01 = 0.38 -> 0 -> minimum 1
    expect(log.prompt_tokens).toBe(38);
    expect(log.quota).toBe(1);
  });

  it('lists models in OpenAI shape, filtered by the token model limits', async () => {
    const all = await client.models.list();
    const ids = all.data.map((m) => m.id);
    expect(ids).toContain('gpt-4o');
    expect(ids).toContain('deepseek-chat');
    expect(all.data[0]).toMatchObject({ object: 'model' });
    const limited = await seedToken(server.ctx, {
      userId,
      remain: 1000,
      modelLimits: ['gpt-4o', 'not-served'],
    });
    const c2 = new OpenAI({ apiKey: limited.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect((await c2.models.list()).data.map((m) => m.id)).toEqual(['gpt-4o']);
    expect((await c2.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    await expect(c2.models.retrieve('deepseek-chat')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    await expect(
      c2.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('serves the playground from the console session, billing the user only', async () => {
    const player = await seedUser(server.ctx, { quota: 1_000_000, password: 'playground-pass-1' });
    const login = await fetch(`${server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: player.username, password: 'playground-pass-1' }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const res = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { cookie, 'new-api-user': String(player.id), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4.1-nano-2025-04-14',
        group: 'default',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"delta"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const log = await logOf(res.headers.get('x-oneapi-request-id'));
    expect(log.token_name).toBe('playground-default');
    expect(log.token_id).toBe(0);
    expect(log.quota).toBe(61);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(u.quota).toBe(1_000_000 - 61);
    const denied = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { cookie, 'new-api-user': String(player.id), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4.1-nano-2025-04-14',
        group: 'not-mine',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(denied.status).toBe(403);
    const anonymous = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toBeTruthy();
  });

  it('calls Azure channels at their deployment URL with the api-version and api-key', async () => {
    await seedChannel(server.ctx, {
      type: 3,
      baseUrl: mock.url,
      key: 'azure-key-123',
      models: ['gpt-4.1-mini'],
      other: '2024-10-21',
    });
    mock.requests.length = 0;
    const answer = await client.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices.length).toBeGreaterThan(0);
    const seen = mock.requests[0];
    expect(seen.path).toBe('/openai/deployments/gpt-41-mini/chat/completions');
    expect(seen.query).toBe('api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe('azure-key-123');
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('emulates the OpenAI billing endpoints', async () => {
    const headers = { authorization: `Bearer ${client.apiKey}` };
    const sub = (await (
      await fetch(`${server.url}/v1/dashboard/billing/subscription`, { headers })
    ).json()) as Record<string, unknown>;
    expect(sub.object).toBe('billing_subscription');
    expect(sub.hard_limit_usd as number).toBeCloseTo(START / 500000, 6);
    const usage = (await (await fetch(`${server.url}/dashboard/billing/usage`, { headers })).json()) as {
      object: string;
      total_usage: number;
    };
    expect(usage.object).toBe('list');
    expect(usage.total_usage).toBeGreaterThan(0);
  });
});
