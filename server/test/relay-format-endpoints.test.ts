import { describe, expect, it } from 'vitest';
import { formatEndpoints, jsonOf } from './support/format-endpoints.ts';
import { flushLedger, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * The inbound endpoints of the Anthropic, Gemini and Responses formats as raw HTTP, the way a client sees
 * them: where the key may come from, errors in each protocol's own shape, the token's limits, count-tokens
 * answers and the model lists in each shape, with nothing sent upstream and nothing billed where the gateway
 * answers itself. What goes upstream: relay-format-endpoints-upstream.test.ts.
 */
describe('relay: format endpoints', () => {
  const relay = formatEndpoints(startServer);

  it('takes the Anthropic key from x-api-key or Bearer, and Gemini keys from x-goog-api-key, ?key= or Bearer', async () => {
    const msg = { model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'Hello' }] };
    const keyHeaders: Array<Record<string, string>> = [
      { 'x-api-key': relay.key, 'anthropic-version': '2023-06-01' },
      { authorization: `Bearer ${relay.key}` },
    ];
    for (const headers of keyHeaders) {
      const res = await relay.post('/v1/messages', msg, headers);
      expect(res.status).toBe(200);
      expect((await jsonOf(res)).type).toBe('message');
    }
    const gen = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
    for (const [path, headers] of [
      ['/v1beta/models/gemini-x:generateContent', { 'x-goog-api-key': relay.key }],
      [`/v1beta/models/gemini-x:generateContent?key=${relay.key}`, {}],
      ['/v1beta/models/gemini-x:generateContent', { authorization: `Bearer ${relay.key}` }],
      ['/v1/models/gemini-x:generateContent', { 'x-goog-api-key': relay.key }],
    ] as const) {
      const res = await relay.post(path, gen, headers);
      expect(res.status).toBe(200);
      expect((await jsonOf(res)).candidates).toHaveLength(1);
    }
  });

  it('answers each protocol in its own error shape, with the request id in a header', async () => {
    const before = relay.mock.requests.length;
    const noKey = await relay.post('/v1/messages', { model: 'claude-x', max_tokens: 5, messages: [] });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(await jsonOf(noKey)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const noMax = await relay.post(
      '/v1/messages',
      { model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': relay.key },
    );
    expect(noMax.status).toBe(400);
    const body = await jsonOf(noMax);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/max_tokens/);

    const badJson = await relay.post('/v1/messages', '{"model":', { 'x-api-key': relay.key });
    expect(badJson.status).toBe(400);
    expect((await jsonOf(badJson)).type).toBe('error');

    const unknown = await relay.post(
      '/v1/messages',
      { model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': relay.key },
    );
    expect(unknown.status).toBe(404);
    expect((await jsonOf(unknown)).error.type).toBe('not_found_error');

    const gemini = await relay.post(
      '/v1beta/models/gemini-x:generateContent',
      { contents: 'oops' },
      { 'x-goog-api-key': relay.key },
    );
    expect(gemini.status).toBe(400);
    expect(await jsonOf(gemini)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });

    const geminiNoKey = await relay.post('/v1beta/models/gemini-x:generateContent', { contents: [] });
    expect(geminiNoKey.status).toBe(401);
    expect(await jsonOf(geminiNoKey)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    const badAction = await relay.post(
      '/v1beta/models/gemini-x:doSomething',
      {},
      { 'x-goog-api-key': relay.key },
    );
    expect(badAction.status).toBe(404);
    expect((await jsonOf(badAction)).error.status).toBe('NOT_FOUND');

    const toAnthropicN = await relay.post(
      '/v1/chat/completions',
      { model: 'claude-x', n: 2, messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: `Bearer ${relay.key}` },
    );
    expect(toAnthropicN.status).toBe(400);
    expect((await jsonOf(toAnthropicN)).error.message).toMatch(/n/);

    // State only the upstream's own API holds cannot reach a channel of another format.
    const previous = await relay.post(
      '/v1/responses',
      { model: 'claude-x', previous_response_id: 'resp_123', input: 'And then?' },
      { authorization: `Bearer ${relay.key}` },
    );
    expect(previous.status).toBe(400);
    expect((await jsonOf(previous)).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'previous_response_id',
    });
    const cached = await relay.post(
      '/v1beta/models/claude-x:generateContent',
      { cachedContent: 'cachedContents/abc', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      { 'x-goog-api-key': relay.key },
    );
    expect(cached.status).toBe(400);
    const cachedBody = await jsonOf(cached);
    expect(cachedBody).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(cachedBody.error.message).toMatch(/cachedContent/);

    expect(relay.mock.requests.length).toBe(before);
  });

  it("applies the token's model limits and IP list, and the sensitive-word check, in each protocol", async () => {
    const user = await seedUser(relay.server.ctx, { quota: 1_000_000 });
    const limited = await seedToken(relay.server.ctx, {
      userId: user.id,
      remain: 1_000_000,
      modelLimits: ['gemini-x'],
    });
    const before = relay.mock.requests.length;
    const refused = await relay.post(
      '/v1/messages',
      { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': limited.apiKey },
    );
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error.type).toBe('permission_error');
    const elsewhere = await seedToken(relay.server.ctx, {
      userId: user.id,
      remain: 1_000_000,
      allowIps: '10.1.2.3',
    });
    const fenced = await relay.post(
      '/v1beta/models/gemini-x:generateContent',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
      { 'x-goog-api-key': elsewhere.apiKey },
    );
    expect(fenced.status).toBe(403);
    expect((await jsonOf(fenced)).error.status).toBe('PERMISSION_DENIED');

    await relay.server.ctx.options.set('SensitiveWords', 'forbidden-topic');
    await relay.server.ctx.options.set('CheckSensitiveEnabled', 'true');
    try {
      const gemini = await relay.post(
        '/v1beta/models/gemini-x:generateContent',
        { contents: [{ role: 'user', parts: [{ text: 'tell me about the forbidden-topic' }] }] },
        { 'x-goog-api-key': relay.key },
      );
      expect(gemini.status).toBe(400);
      expect((await jsonOf(gemini)).error.status).toBe('INVALID_ARGUMENT');
      const anthropic = await relay.post(
        '/v1/messages',
        {
          model: 'claude-x',
          max_tokens: 5,
          system: [{ type: 'text', text: 'forbidden-topic' }],
          messages: [{ role: 'user', content: 'Hi' }],
        },
        { 'x-api-key': relay.key },
      );
      expect(anthropic.status).toBe(400);
      expect((await jsonOf(anthropic)).error.type).toBe('invalid_request_error');
    } finally {
      await relay.server.ctx.options.set('CheckSensitiveEnabled', 'false');
    }
    expect(relay.mock.requests.length).toBe(before);
  });

  it('counts tokens without calling the upstream or billing', async () => {
    // Rows of earlier tests still in the writer's batch land first, so they are not counted as this test's.
    await flushLedger(relay.server.ctx);
    const rows = (await relay.logRows()).length;
    const before = relay.mock.requests.length;
    const anthropic = await relay.post(
      '/v1/messages/count_tokens',
      {
        model: 'claude-x',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello, how are you today?' }],
      },
      { 'x-api-key': relay.key, 'anthropic-version': '2023-06-01' },
    );
    expect(anthropic.status).toBe(200);
    expect((await jsonOf(anthropic)).input_tokens).toBeGreaterThan(5);
    const gemini = await relay.post(
      '/v1beta/models/gemini-x:countTokens',
      { contents: [{ role: 'user', parts: [{ text: 'Hello, how are you today?' }] }] },
      { 'x-goog-api-key': relay.key },
    );
    expect(gemini.status).toBe(200);
    const total = (await jsonOf(gemini)).totalTokens;
    expect(total).toBeGreaterThan(5);
    const wrapped = await relay.post(
      '/v1beta/models/gemini-x:countTokens',
      {
        generateContentRequest: {
          contents: [{ role: 'user', parts: [{ text: 'Hello, how are you today?' }] }],
        },
      },
      { 'x-goog-api-key': relay.key },
    );
    expect((await jsonOf(wrapped)).totalTokens).toBe(total);
    const responses = await relay.post(
      '/v1/responses/input_tokens',
      { model: 'claude-x', input: 'Hello, how are you today?', instructions: 'Be brief.' },
      { authorization: `Bearer ${relay.key}` },
    );
    expect(responses.status).toBe(200);
    expect(await jsonOf(responses)).toMatchObject({ object: 'response.input_tokens' });
    const noInput = await relay.post(
      '/v1/responses/input_tokens',
      { model: 'claude-x', input: 42 },
      { authorization: `Bearer ${relay.key}` },
    );
    expect(noInput.status).toBe(400);
    expect((await jsonOf(noInput)).error.type).toBe('invalid_request_error');
    expect(relay.mock.requests.length).toBe(before);
    await flushLedger(relay.server.ctx);
    expect((await relay.logRows()).length).toBe(rows);
  });

  it("lists models in the caller's shape", async () => {
    const openai = await jsonOf(
      await fetch(`${relay.server.url}/v1/models`, { headers: { authorization: `Bearer ${relay.key}` } }),
    );
    expect(openai.object).toBe('list');
    expect(openai.data.map((m: { id: string }) => m.id)).toEqual(
      expect.arrayContaining(['claude-x', 'gemini-x']),
    );

    const anthropic = await jsonOf(
      await fetch(`${relay.server.url}/v1/models`, {
        headers: { 'x-api-key': relay.key, 'anthropic-version': '2023-06-01' },
      }),
    );
    expect(anthropic.has_more).toBe(false);
    expect(anthropic.data[0]).toMatchObject({ type: 'model' });

    for (const url of [
      `${relay.server.url}/v1beta/models?key=${relay.key}`,
      `${relay.server.url}/v1/models?key=${relay.key}`,
    ]) {
      const google = await jsonOf(await fetch(url));
      expect(google.models.map((m: { name: string }) => m.name)).toEqual(
        expect.arrayContaining(['models/claude-x', 'models/gemini-x']),
      );
    }
    const one = await fetch(`${relay.server.url}/v1beta/models/gemini-x`, {
      headers: { 'x-goog-api-key': relay.key },
    });
    expect((await jsonOf(one)).name).toBe('models/gemini-x');
  });
});
