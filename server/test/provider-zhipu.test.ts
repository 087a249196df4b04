import { describe, expect, it } from 'vitest';
import { startZhipuMock, ZHIPU_ANSWER, ZHIPU_EMBED_TOKENS, ZHIPU_STREAM } from './support/mock-zhipu.ts';
import { billOneTwo, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Zhipu ChatGLM v3 (type 16) channels, made by an admin through the console, used with the official OpenAI and
 * Anthropic clients against a mock that verifies the HS256 JWT the gateway signs with the key's secret. Each
 * answer's text and usage are compared with what the mock sent, and the charge with the usage priced by hand
 * (prompt + 2 x completion).
 */
const SECRET = 'Zs3cr3tQpL9xWv2';

describe('Zhipu ChatGLM (v3 API) channels', () => {
  const t = providerSuite({
    mock: () => startZhipuMock({ a1b2c3d4e5f60718: SECRET }),
    prices: [
      'chatglm_turbo',
      'text_embedding',
      'chatglm-blocked',
      'chatglm-arrears',
      'chatglm-busy',
      'chatglm-forged',
    ],
    channels: (zhipu) => ({
      glm: {
        type: 16,
        key: `a1b2c3d4e5f60718.${SECRET}`,
        base_url: zhipu.url,
        models: ['chatglm_turbo', 'text_embedding', 'chatglm-blocked', 'chatglm-arrears', 'chatglm-busy'],
      },
      'glm-forged': {
        type: 16,
        key: 'a1b2c3d4e5f60718.not-the-secret',
        base_url: zhipu.url,
        models: ['chatglm-forged'],
        model_mapping: { 'chatglm-forged': 'chatglm_turbo' },
      },
    }),
  });
  const bill = (usage: { prompt: number; completion: number }) => billOneTwo(usage, t.ids.glm);

  /** A failure's text never carries the secret. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    expect(text).not.toContain(SECRET);
  }

  it('signs a JWT the provider verifies and relays a plain answer with usage', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are GLM.' },
      { role: 'user' as const, content: '你好' },
    ];
    const ask = { model: 'chatglm_turbo', messages, temperature: 0, top_p: 1 };
    await t.billedChat(ask, bill(ZHIPU_ANSWER.usage), ZHIPU_ANSWER.text);
    const call = t.mock.calls.at(-1);
    expect(call?.path).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
    expect(call?.body).toEqual({
      prompt: [{ role: 'user', content: 'You are GLM.\n\n你好' }],
      temperature: 0.01,
      top_p: 0.99,
    });
    const auth = t.mock.tokens.at(-1) ?? '';
    expect(auth.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(auth.split('.')[1], 'base64url').toString())).toMatchObject({
      api_key: 'a1b2c3d4e5f60718',
    });
  });

  it('streams through the OpenAI client, keeping spaces and line breaks of each delta', async () => {
    const ask = { model: 'chatglm_turbo', messages: [{ role: 'user' as const, content: 'say hello' }] };
    await t.billedStream(ask, bill(ZHIPU_STREAM.usage), ZHIPU_STREAM.deltas.join(''));
    expect(t.mock.calls.at(-1)?.path).toBe('/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(t.mock.calls.at(-1)?.body.incremental).toBe(true);
  });

  it('answers an Anthropic client, streamed', async () => {
    const ask = {
      model: 'chatglm_turbo',
      max_tokens: 128,
      messages: [{ role: 'user' as const, content: 'say hello' }],
    };
    await t.billedMessageStream(ask, bill(ZHIPU_STREAM.usage), ZHIPU_STREAM.deltas.join(''));
  });

  it('reuses the signed token across requests', async () => {
    const seen = t.mock.tokens.length;
    for (let i = 0; i < 2; i++) await t.ask('chatglm_turbo');
    const used = t.mock.tokens.slice(seen);
    expect(used).toHaveLength(2);
    expect(new Set(used).size).toBe(1);
    expect(used[0]).toBe(t.mock.tokens[0]);
  });

  it('embeds several texts with one text_embedding call each, in order', async () => {
    const calls = t.mock.calls.length;
    const three = 3 * ZHIPU_EMBED_TOKENS;
    const r = await t.billed({ prompt: three, completion: 0, quota: three }, () =>
      t.openai().embeddings.create({
        model: 'text_embedding',
        input: ['one', 'three', 'four'],
        encoding_format: 'float',
      }),
    );
    expect(r.data.map((d) => d.embedding)).toEqual([
      [0.3, 0.25, -0.5],
      [0.5, 0.25, -0.5],
      [0.4, 0.25, -0.5],
    ]);
    expect(t.mock.calls.slice(calls).map((c) => c.body)).toEqual([
      { prompt: 'one' },
      { prompt: 'three' },
      { prompt: 'four' },
    ]);
    expect(r.usage.prompt_tokens).toBe(three);

    const one = await t.openai().embeddings.create({
      model: 'text_embedding',
      input: 'single',
      encoding_format: 'float',
    });
    expect(one.data).toHaveLength(1);
    expect(one.usage.prompt_tokens).toBe(ZHIPU_EMBED_TOKENS);
  });

  it('maps error codes in 200 answers to statuses in OpenAI and Anthropic protocols, charging nothing', async () => {
    const check = expectNoSecret;
    await t.unbilled(() =>
      t.expectErrors([
        { via: 'chat', model: 'chatglm-blocked', status: 400, says: '敏感内容', check },
        { via: 'chat', model: 'chatglm-arrears', status: 429, type: 'insufficient_quota' },
        // sse-invoke answering a JSON error instead of events.
        { via: 'chat-stream', model: 'chatglm-busy', status: 429 },
        {
          via: 'messages',
          model: 'chatglm-blocked',
          status: 400,
          type: 'invalid_request_error',
          check,
        },
        { via: 'messages', model: 'chatglm-arrears', status: 429, type: 'billing_error' },
      ]),
    );
  });

  it('is refused by the provider when the JWT is signed with the wrong secret', async () => {
    const err = await failed(t.ask('chatglm-forged'));
    expect(err.status).toBe(503);
    expect(err.message).toContain('refused the credentials of the channel');
    expect(err.message).not.toContain('not-the-secret');
  });

  it('refuses tools and images with a clear 400 (the v3 API has neither)', async () => {
    const err = await failed(
      t.openai().chat.completions.create({
        model: 'chatglm_turbo',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } },
        ],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toContain('no tool calling');
  });

  it('refuses a key that is not id.secret at channel save', async () => {
    const body = { type: 16, name: 'bad-glm', base_url: t.mock.url, models: ['chatglm_turbo'] };
    await t.expectRefusedKeys(body, ['no-dot-here', 'a.b.c', '.secret'], 'id.secret');
  });

  it('passes the channel test against the mock', async () => {
    const r = await t.admin.get(`/api/channel/test/${t.ids.glm}`);
    expect(r.success, r.message).toBe(true);
    const forged = await t.admin.get(`/api/channel/test/${t.ids['glm-forged']}`);
    expect(forged.success).toBe(false);
  });
});
