import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchUpstreamModels } from '../src/modules/channels/fetch-models.ts';
import { testChannel } from '../src/relay/call/channel-test.ts';
import { anthropicAnswer, geminiAnswer } from './support/fixture-answers.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The inbound endpoints of the Anthropic, Gemini and Responses formats as raw HTTP, the way a client sees
 * them: where the key may come from, the model lists in each shape, count-tokens answers, and errors in each
 * protocol's own shape with nothing sent upstream and nothing billed.
 */
describe('relay: format endpoints', () => {
  let server: TestServer;
  let mock: FormatsMock;
  let chatMock: MockUpstream;
  let key: string;

  beforeAll(async () => {
    mock = await startFormatsMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const user = await seedUser(server.ctx, { quota: 10_000_000 });
    key = (await seedToken(server.ctx, { userId: user.id, remain: 10_000_000 })).apiKey;
    await server.ctx.options.set(
      'ModelRatio',
      JSON.stringify({ 'claude-x': 1.5, 'gemini-x': 0.15, 'gemini-embedding-001': 0.075 }),
    );
    await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['claude-x'],
    });
    await seedChannel(server.ctx, {
      type: ChannelType.Gemini,
      baseUrl: mock.url,
      key: 'gm-mock',
      models: ['gemini-x', 'gemini-embedding-001'],
    });
    chatMock = await startMockUpstream();
    await seedChannel(server.ctx, {
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: ['text-embedding-3-small'],
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await chatMock?.close();
  });

  const jsonOf = (r: Response): Promise<any> => r.json();
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const logRows = async () => {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db.selectFrom('logs').select('id').where('type', '=', 2).execute();
  };

  it('takes the Anthropic key from x-api-key or Bearer, and Gemini keys from x-goog-api-key, ?key= or Bearer', async () => {
    const msg = { model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'Hello' }] };
    const keyHeaders: Array<Record<string, string>> = [
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of keyHeaders) {
      const res = await post('/v1/messages', msg, headers);
      expect(res.status).toBe(200);
      expect((await jsonOf(res)).type).toBe('message');
    }
    const gen = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
    for (const [path, headers] of [
      ['/v1beta/models/gemini-x:generateContent', { 'x-goog-api-key': key }],
      [`/v1beta/models/gemini-x:generateContent?key=${key}`, {}],
      ['/v1beta/models/gemini-x:generateContent', { authorization: `Bearer ${key}` }],
      ['/v1/models/gemini-x:generateContent', { 'x-goog-api-key': key }],
    ] as const) {
      const res = await post(path, gen, headers);
      expect(res.status).toBe(200);
      expect((await jsonOf(res)).candidates).toHaveLength(1);
    }
  });

  it('answers each protocol in its own error shape, with the request id in a header', async () => {
    const before = mock.requests.length;
    const noKey = await post('/v1/messages', { model: 'claude-x', max_tokens: 5, messages: [] });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(await jsonOf(noKey)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const noMax = await post(
      '/v1/messages',
      { model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': key },
    );
    expect(noMax.status).toBe(400);
    const body = await jsonOf(noMax);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/max_tokens/);

    const badJson = await post('/v1/messages', '{"model":', { 'x-api-key': key });
    expect(badJson.status).toBe(400);
    expect((await jsonOf(badJson)).type).toBe('error');

    const unknown = await post(
      '/v1/messages',
      { model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': key },
    );
    expect(unknown.status).toBe(404);
    expect((await jsonOf(unknown)).error.type).toBe('not_found_error');

    const gemini = await post(
      '/v1beta/models/gemini-x:generateContent',
      { contents: 'oops' },
      { 'x-goog-api-key': key },
    );
    expect(gemini.status).toBe(400);
    expect(await jsonOf(gemini)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });

    const geminiNoKey = await post('/v1beta/models/gemini-x:generateContent', { contents: [] });
    expect(geminiNoKey.status).toBe(401);
    expect(await jsonOf(geminiNoKey)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    const badAction = await post('/v1beta/models/gemini-x:doSomething', {}, { 'x-goog-api-key': key });
    expect(badAction.status).toBe(404);
    expect((await jsonOf(badAction)).error.status).toBe('NOT_FOUND');

    const toAnthropicN = await post(
      '/v1/chat/completions',
      { model: 'claude-x', n: 2, messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: `Bearer ${key}` },
    );
    expect(toAnthropicN.status).toBe(400);
    expect((await jsonOf(toAnthropicN)).error.message).toMatch(/n/);

    // State only the upstream's own API holds cannot reach a channel of another format.
    const previous = await post(
      '/v1/responses',
      { model: 'claude-x', previous_response_id: 'resp_123', input: 'And then?' },
      { authorization: `Bearer ${key}` },
    );
    expect(previous.status).toBe(400);
    expect((await jsonOf(previous)).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'previous_response_id',
    });
    const cached = await post(
      '/v1beta/models/claude-x:generateContent',
      { cachedContent: 'cachedContents/abc', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      { 'x-goog-api-key': key },
    );
    expect(cached.status).toBe(400);
    const cachedBody = await jsonOf(cached);
    expect(cachedBody).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(cachedBody.error.message).toMatch(/cachedContent/);

    expect(mock.requests.length).toBe(before);
  });

  it('sends a body it did not change upstream byte for byte, and an edited one re-serialised', async () => {
    const text =
      '{ "max_tokens": 50,\n  "messages": [ {"role":"user","content":"Hello \\u00e9"} ],  "model": "claude-x" }';
    const res = await post('/v1/messages', text, { 'x-api-key': key });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)?.raw).toBe(text);
    // The thinking adapter edits the body: it goes as JSON the gateway wrote.
    await server.ctx.options.set(
      'ModelRatio',
      JSON.stringify({
        'claude-x': 1.5,
        'claude-x-thinking': 1.5,
        'gemini-x': 0.15,
        'gemini-embedding-001': 0.075,
      }),
    );
    await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['claude-x-thinking'],
    });
    const thinking = await post(
      '/v1/messages',
      { model: 'claude-x-thinking', max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': key },
    );
    expect(thinking.status).toBe(200);
    const sent = mock.requests.at(-1)?.body;
    expect(sent).toMatchObject({ model: 'claude-x', thinking: { type: 'enabled', budget_tokens: 1600 } });
  });

  it('bills a relayed Anthropic stream the client left for at least the text it received', async () => {
    await server.ctx.options.set(
      'ModelRatio',
      JSON.stringify({
        'claude-x': 1.5,
        'claude-slow': 1.5,
        'gemini-x': 0.15,
        'gemini-embedding-001': 0.075,
      }),
    );
    await seedChannel(server.ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['claude-slow'],
    });
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        model: 'claude-slow',
        max_tokens: 500,
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      signal: abort.signal,
    });
    const requestId = res.headers.get('x-oneapi-request-id') as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while ((seen.match(/text_delta/g) ?? []).length < 3)
      seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    // Settled once the gateway sees the client gone: wait for its row, not for a time.
    const logged = async () => {
      await flushLedger(server.ctx);
      return server.ctx.logDb.db
        .selectFrom('logs')
        .selectAll()
        .where('request_id', '=', requestId)
        .executeTakeFirst();
    };
    await expect.poll(logged).toBeDefined();
    const row = (await logged()) as NonNullable<Awaited<ReturnType<typeof logged>>>;
    // message_start reported 1 output token; the three text deltas the client received count for more.
    expect(row.prompt_tokens).toBe(12);
    expect(row.completion_tokens).toBeGreaterThan(1);
    expect(row.content).toContain('client disconnected mid-stream');
  });

  it("applies the token's model limits and IP list, and the sensitive-word check, in each protocol", async () => {
    const user = await seedUser(server.ctx, { quota: 1_000_000 });
    const limited = await seedToken(server.ctx, {
      userId: user.id,
      remain: 1_000_000,
      modelLimits: ['gemini-x'],
    });
    const before = mock.requests.length;
    const refused = await post(
      '/v1/messages',
      { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': limited.apiKey },
    );
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error.type).toBe('permission_error');
    const elsewhere = await seedToken(server.ctx, {
      userId: user.id,
      remain: 1_000_000,
      allowIps: '10.1.2.3',
    });
    const fenced = await post(
      '/v1beta/models/gemini-x:generateContent',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      { 'x-goog-api-key': elsewhere.apiKey },
    );
    expect(fenced.status).toBe(403);
    expect((await jsonOf(fenced)).error.status).toBe('PERMISSION_DENIED');

    await server.ctx.options.set('SensitiveWords', 'forbidden-topic');
    await server.ctx.options.set('CheckSensitiveEnabled', 'true');
    try {
      const gemini = await post(
        '/v1beta/models/gemini-x:generateContent',
        { contents: [{ role: 'user', parts: [{ text: 'tell me about the forbidden-topic' }] }] },
        { 'x-goog-api-key': key },
      );
      expect(gemini.status).toBe(400);
      expect((await jsonOf(gemini)).error.status).toBe('INVALID_ARGUMENT');
      const anthropic = await post(
        '/v1/messages',
        {
          model: 'claude-x',
          max_tokens: 5,
          system: [{ type: 'text', text: 'forbidden-topic' }],
          messages: [{ role: 'user', content: 'Hi' }],
        },
        { 'x-api-key': key },
      );
      expect(anthropic.status).toBe(400);
      expect((await jsonOf(anthropic)).error.type).toBe('invalid_request_error');
    } finally {
      await server.ctx.options.set('CheckSensitiveEnabled', 'false');
    }
    expect(mock.requests.length).toBe(before);
  });

  it('counts tokens without calling the upstream or billing', async () => {
    // Rows of earlier tests still in the writer's batch land first, so they are not counted as this test's.
    await flushLedger(server.ctx);
    const rows = (await logRows()).length;
    const before = mock.requests.length;
    const anthropic = await post(
      '/v1/messages/count_tokens',
      {
        model: 'claude-x',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello, how are you today?' }],
      },
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    );
    expect(anthropic.status).toBe(200);
    expect((await jsonOf(anthropic)).input_tokens).toBeGreaterThan(5);
    const gemini = await post(
      '/v1beta/models/gemini-x:countTokens',
      { contents: [{ role: 'user', parts: [{ text: 'Hello, how are you today?' }] }] },
      { 'x-goog-api-key': key },
    );
    expect(gemini.status).toBe(200);
    const total = (await jsonOf(gemini)).totalTokens;
    expect(total).toBeGreaterThan(5);
    const wrapped = await post(
      '/v1beta/models/gemini-x:countTokens',
      {
        generateContentRequest: {
          contents: [{ role: 'user', parts: [{ text: 'Hello, how are you today?' }] }],
        },
      },
      { 'x-goog-api-key': key },
    );
    expect((await jsonOf(wrapped)).totalTokens).toBe(total);
    const responses = await post(
      '/v1/responses/input_tokens',
      { model: 'claude-x', input: 'Hello, how are you today?', instructions: 'Be brief.' },
      { authorization: `Bearer ${key}` },
    );
    expect(responses.status).toBe(200);
    expect(await jsonOf(responses)).toMatchObject({ object: 'response.input_tokens' });
    const noInput = await post(
      '/v1/responses/input_tokens',
      { model: 'claude-x', input: 42 },
      { authorization: `Bearer ${key}` },
    );
    expect(noInput.status).toBe(400);
    expect((await jsonOf(noInput)).error.type).toBe('invalid_request_error');
    expect(mock.requests.length).toBe(before);
    await flushLedger(server.ctx);
    expect((await logRows()).length).toBe(rows);
  });

  it('converts embeddings between Gemini and OpenAI, and passes Gemini to Gemini through', async () => {
    const one = await post(
      '/v1beta/models/text-embedding-3-small:embedContent',
      { content: { parts: [{ text: 'hello world' }] } },
      { 'x-goog-api-key': key },
    );
    expect(one.status).toBe(200);
    expect((await jsonOf(one)).embedding.values).toEqual([0.0023064255, -0.009327292, 0.015797347]);
    const batch = await post(
      '/v1beta/models/text-embedding-3-small:batchEmbedContents',
      {
        requests: ['a', 'b'].map((text) => ({
          model: 'models/text-embedding-3-small',
          content: { parts: [{ text }] },
        })),
      },
      { 'x-goog-api-key': key },
    );
    expect((await jsonOf(batch)).embeddings).toHaveLength(2);

    const openai = await post(
      '/v1/embeddings',
      { model: 'gemini-embedding-001', input: ['hello', 'hello world'] },
      { authorization: `Bearer ${key}` },
    );
    expect(openai.status).toBe(200);
    const data = (await jsonOf(openai)).data;
    expect(data.map((d: { embedding: number[] }) => d.embedding[0])).toEqual([0.05, 0.11]);
    expect(mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // A channel test of a Gemini channel with an embedding model sends an embeddings request.
    const gemini = await server.ctx.db.db
      .selectFrom('channels')
      .selectAll()
      .where('type', '=', ChannelType.Gemini)
      .executeTakeFirstOrThrow();
    const tested = await testChannel(server.ctx, gemini, 'gemini-embedding-001');
    expect(tested).toMatchObject({ success: true, status: 200 });
    expect(mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // The official SDK asks for base64 unless told otherwise, and decodes float32 vectors from it.
    const sdk = await new OpenAI({
      apiKey: key,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    }).embeddings.create({
      model: 'gemini-embedding-001',
      input: ['hello', 'hello world'],
    });
    expect(sdk.data.map((d) => d.embedding.length)).toEqual([3, 3]);
    expect(sdk.data[0].embedding[0]).toBeCloseTo(0.05, 6);
    expect(sdk.data[1].embedding[0]).toBeCloseTo(0.11, 6);

    const same = await post(
      '/v1beta/models/gemini-embedding-001:embedContent',
      { content: { parts: [{ text: 'hello' }] } },
      { 'x-goog-api-key': key },
    );
    expect((await jsonOf(same)).embedding.values[0]).toBe(0.05);
    expect(mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    await flushLedger(server.ctx);
    const rows = await server.ctx.logDb.db
      .selectFrom('logs')
      .select(['model_name', 'prompt_tokens', 'quota'])
      .where('type', '=', 2)
      .where('model_name', 'in', ['text-embedding-3-small', 'gemini-embedding-001'])
      .execute();
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r.prompt_tokens).toBeGreaterThan(0);
  });

  it('tests Anthropic and Gemini channels and fetches their model lists in their own protocols', async () => {
    await server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    for (const [type, key, expected] of [
      [ChannelType.Anthropic, 'sk-ant-mock', 'claude-sonnet-4-5-20250929'],
      [ChannelType.Gemini, 'gm-mock', 'gemini-2.5-flash'],
    ] as const) {
      const models = await fetchUpstreamModels(server.ctx, { type, baseUrl: mock.url, key });
      expect(models).toContain(expected);
      const ch = server.ctx.db.db.selectFrom('channels').selectAll().where('type', '=', type);
      const row = await ch.executeTakeFirstOrThrow();
      const result = await testChannel(
        server.ctx,
        row,
        type === ChannelType.Anthropic ? 'claude-x' : 'gemini-x',
      );
      expect(result).toMatchObject({ success: true, status: 200, message: '' });
      const sent = mock.requests.at(-1);
      if (type === ChannelType.Anthropic) {
        expect(sent?.path).toBe('/v1/messages');
        expect(sent?.body).toMatchObject({ model: 'claude-x', max_tokens: 10 });
      } else expect(sent?.path).toBe('/v1beta/models/gemini-x:generateContent');
    }
  });

  it('streams to Gemini clients without alt=sse as one JSON array, relayed or converted', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
    for (const model of ['gemini-x', 'claude-x']) {
      const res = await post(`/v1beta/models/${model}:streamGenerateContent`, body, {
        'x-goog-api-key': key,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      const chunks = JSON.parse(await res.text());
      expect(Array.isArray(chunks)).toBe(true);
      const text = chunks
        .flatMap((c: any) => c.candidates?.[0]?.content?.parts ?? [])
        .map((p: { text?: string }) => p.text ?? '')
        .join('');
      const recorded =
        model === 'gemini-x'
          ? geminiAnswer('google/generate-content/text.chunks.txt').text
          : anthropicAnswer('anthropic/messages/text.chunks.txt').text;
      expect(text).toBe(recorded);
      expect(chunks.at(-1).usageMetadata.promptTokenCount).toBeGreaterThan(0);
    }
  });

  it("lists models in the caller's shape", async () => {
    const openai = await jsonOf(
      await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(openai.object).toBe('list');
    expect(openai.data.map((m: { id: string }) => m.id)).toEqual(
      expect.arrayContaining(['claude-x', 'gemini-x']),
    );

    const anthropic = await jsonOf(
      await fetch(`${server.url}/v1/models`, {
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      }),
    );
    expect(anthropic.has_more).toBe(false);
    expect(anthropic.data[0]).toMatchObject({ type: 'model' });

    for (const url of [`${server.url}/v1beta/models?key=${key}`, `${server.url}/v1/models?key=${key}`]) {
      const google = await jsonOf(await fetch(url));
      expect(google.models.map((m: { name: string }) => m.name)).toEqual(
        expect.arrayContaining(['models/claude-x', 'models/gemini-x']),
      );
    }
    const one = await fetch(`${server.url}/v1beta/models/gemini-x`, { headers: { 'x-goog-api-key': key } });
    expect((await jsonOf(one)).name).toBe('models/gemini-x');
  });
});
