import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAnswer } from './support/fixture-answers.ts';
import { type ClientFormat, formatClient } from './support/format-clients.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Model fallbacks over HTTP with the official SDKs: a model whose every channel fails (a mock upstream that
 * answers 500) is answered by its fallback model on a channel of another format (Anthropic, converted), in
 * every client format; the reply names the model that answered, the log row bills that model's price and says
 * which was asked for; a client's own `models` list counts only where the operator allows it; a 400 never
 * falls back.
 */
const PRIMARY = 'fb-primary';
const FALLBACK = 'fb-claude';
const BROKEN_CLAUDE = 'fb-claude-error';

describe('model fallbacks', () => {
  let server: TestServer;
  let chatMock: MockUpstream;
  let mock: FormatsMock;
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    chatMock = await startMockUpstream();
    mock = await startFormatsMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    await ctx.options.set(
      'ModelRatio',
      JSON.stringify({ [PRIMARY]: 1, [FALLBACK]: 1.5, [BROKEN_CLAUDE]: 1, 'fb-other': 1 }),
    );
    await ctx.options.set('CompletionRatio', JSON.stringify({ [FALLBACK]: 5 }));
    await ctx.options.set(
      'model_fallbacks.models',
      JSON.stringify({ [PRIMARY]: [FALLBACK], [BROKEN_CLAUDE]: [FALLBACK] }),
    );
    // Two channels for the primary model, both failing with a retryable 500.
    for (let i = 0; i < 2; i++)
      await seedChannel(ctx, {
        type: ChannelType.OpenAI,
        baseUrl: chatMock.url,
        key: 'sk-fail500',
        models: [PRIMARY, 'fb-other'],
        modelMapping: { [PRIMARY]: 'gpt-4o', 'fb-other': 'gpt-4o' },
        autoBan: false,
      });
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: [FALLBACK, BROKEN_CLAUDE],
      modelMapping: { [FALLBACK]: 'claude-sonnet-4-5', [BROKEN_CLAUDE]: 'claude-error' },
      autoBan: false,
    });
    await ctx.options.set('RetryTimes', '1');
    const user = await seedUser(ctx, { quota: 100_000_000 });
    userId = user.id;
    apiKey = (await seedToken(ctx, { userId, remain: 100_000_000 })).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await chatMock?.close();
  });

  async function lastRow() {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  }

  const recorded = anthropicAnswer('anthropic/messages/text.json');

  for (const format of ['openai', 'anthropic', 'gemini', 'responses'] as ClientFormat[])
    for (const stream of [false, true])
      it(`${format} client, ${stream ? 'streamed' : 'JSON'}: every channel fails, the Anthropic fallback answers`, async () => {
        const failedBefore = chatMock.requests.length;
        const claudeBefore = mock.requests.length;
        const out = await formatClient(format, server.url, apiKey).ask(PRIMARY, { stream });
        expect(out.text.length).toBeGreaterThan(0);
        // Both channels of the primary model were tried, then the fallback's.
        expect(chatMock.requests.length - failedBefore).toBe(2);
        expect(mock.requests.length - claudeBefore).toBe(1);
        expect(mock.requests.at(-1)?.body.model).toBe('claude-sonnet-4-5');
        const row = await lastRow();
        expect(row.model_name).toBe(FALLBACK);
        expect(JSON.parse(row.other ?? '{}')).toMatchObject({ fallback_from: PRIMARY, model_ratio: 1.5 });
      });

  it('names the answering model in X-ModelGate-Model and bills its price', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: PRIMARY, messages: [{ role: 'user', content: 'Hello, how are you?' }] })
      .withResponse();
    expect(response.headers.get('x-modelgate-model')).toBe(FALLBACK);
    expect(data.choices[0].message.content).toBe(recorded.text);
    const row = await lastRow();
    const usage = data.usage!;
    // Anthropic's price at the fallback model's ratios: 1.5 per prompt token, 1.5 x 5 per completion token.
    expect(row.quota).toBe(Math.round(1.5 * (usage.prompt_tokens + 5 * usage.completion_tokens)));
  });

  it('does not fall back on the upstream refusing the request (400)', async () => {
    const before = mock.requests.length;
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: BROKEN_CLAUDE,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-modelgate-model')).toBeNull();
    expect(mock.requests.length).toBe(before + 1);
  });

  it("takes the client's own models list only where the operator allows it", async () => {
    const ask = () =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'fb-other',
          models: ['fb-other', FALLBACK],
          messages: [{ role: 'user', content: 'Hello, how are you?' }],
        }),
      });
    const refused = await ask();
    expect(refused.status).toBe(500);
    expect(chatMock.requests.at(-1)?.body.models).toBeUndefined();
    await server.ctx.options.set('model_fallbacks.client_enabled', 'true');
    try {
      const answered = await ask();
      expect(answered.status, await answered.clone().text()).toBe(200);
      expect(answered.headers.get('x-modelgate-model')).toBe(FALLBACK);
      expect(JSON.parse((await lastRow()).other ?? '{}').fallback_from).toBe('fb-other');
    } finally {
      await server.ctx.options.set('model_fallbacks.client_enabled', 'false');
    }
  });

  it('refuses a fallback option that is not a map of model lists', async () => {
    const { normaliseOption } = await import('../src/modules/options/store.ts');
    const { optionDef } = await import('../src/modules/options/registry.ts');
    for (const [key, bad] of [
      ['model_fallbacks.models', '{"a": "b"}'],
      ['model_fallbacks.groups', '{"vip": {"a": [1]}}'],
    ] as const)
      expect(() => normaliseOption(key, bad, optionDef(key))).toThrow(/list of model names/);
  });
});
