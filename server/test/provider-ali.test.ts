import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startDashScopeMock } from './support/mock-dashscope.ts';
import { CITY_WEATHER, charged, failed, HI, providerSuite, streamChat } from './support/provider-harness.ts';

/**
 * Alibaba Qwen (channel type 17) through DashScope's native API, against a mock that speaks it: Bearer key
 * check, generation in message format with incremental SSE (event:result frames, event:error frames),
 * text-embedding, text-rerank, and the Wanx image task that is submitted async and polled to its end.
 */
const GOOD_KEY = 'sk-ali-good-0123456789';
const BAD_KEY = 'sk-ali-revoked-987654321';
const MODELS = [
  'qwen-plus',
  'qwen-plus-internet',
  'qwen-arrears',
  'qwen-filtered',
  'text-embedding-v3',
  'gte-rerank',
  'wanx2.1-t2i-turbo',
];
const GENERATION = '/api/v1/services/aigc/text-generation/generation';
const SAY_HELLO = [{ role: 'user' as const, content: 'Say hello' }];

describe('Alibaba Qwen (DashScope) channel', () => {
  const t = providerSuite({
    mock: () => startDashScopeMock(GOOD_KEY),
    prices: {
      models: Object.fromEntries([...MODELS, 'qwen-revoked'].map((m) => [m, { ratio: 1.5, completion: 2 }])),
      group: 1,
      perCall: { 'wanx2.1-t2i-turbo': 0.02 },
    },
    channels: (mock) => ({
      dashscope: {
        type: 17,
        key: GOOD_KEY,
        base_url: mock.url,
        models: MODELS,
        test_model: 'qwen-plus',
        setting: JSON.stringify({ poll_interval_ms: 50 }),
      },
      'dashscope-revoked': { type: 17, key: BAD_KEY, base_url: mock.url, models: ['qwen-revoked'] },
    }),
  });
  const lastSeen = (path: string) => [...t.mock.seen].reverse().find((s) => s.path === path);
  const polls = () => t.mock.seen.filter((s) => s.path.startsWith('/api/v1/tasks/'));
  /** The bill at ModelRatio 1.5, CompletionRatio 2, group ratio 1. */
  const bill = (prompt: number, completion: number) => ({
    prompt,
    completion,
    quota: Math.round((prompt + 2 * completion) * 1.5),
  });

  it('refuses a key that is not one DashScope API key when the channel is saved', async () => {
    const [r] = await t.saveEach({ type: 17, name: 'bad-key', base_url: t.mock.url, models: ['qwen-plus'] }, [
      'sk-ali one|two',
    ]);
    expect(r.success).toBe(false);
    expect(r.message).toMatch(/single API key \(sk-\.\.\.\)/);
  });

  it('relays a plain chat with the Bearer key, in message format, and bills its usage', async () => {
    const result = await t.billed(bill(12, 4), () =>
      t.openai().chat.completions.create({
        model: 'qwen-plus',
        temperature: 0.5,
        max_tokens: 64,
        messages: [{ role: 'system', content: 'Be brief.' }, ...SAY_HELLO],
      }),
    );
    expect(result.choices[0].message.content).toBe('Hello from Qwen');
    expect(result.choices[0].finish_reason).toBe('stop');
    expect(result.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    const sent = lastSeen(GENERATION);
    expect(sent?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
    expect(sent?.headers['x-dashscope-sse']).toBeUndefined();
    expect(sent?.body).toEqual({
      model: 'qwen-plus',
      input: { messages: [{ role: 'system', content: 'Be brief.' }, ...SAY_HELLO] },
      parameters: { result_format: 'message', temperature: 0.5, max_tokens: 64 },
    });
  });

  it('relays a streamed chat from incremental SSE frames, with usage, and bills it', async () => {
    const result = await t.billedStream(
      { model: 'qwen-plus', messages: SAY_HELLO },
      bill(12, 3),
      'Hello from Qwen',
    );
    expect(result.finish).toBe('stop');
    const sent = lastSeen(GENERATION);
    expect(sent?.headers['x-dashscope-sse']).toBe('enable');
    expect(sent?.headers.accept).toBe('text/event-stream');
    expect(sent?.body.parameters).toMatchObject({ result_format: 'message', incremental_output: true });
  });

  it('streams tool calls with their arguments in fragments, as OpenAI tool calls', async () => {
    const s = await streamChat(t.openai(), {
      model: 'qwen-plus',
      tool_choice: 'auto',
      tools: [CITY_WEATHER],
      messages: [{ role: 'user', content: 'Weather in Hangzhou?' }],
    });
    expect(s.calls).toEqual([{ id: 'call_qwen_1', name: 'get_weather', args: '{"city":"Hangzhou"}' }]);
    expect(s.finish).toBe('tool_calls');
    const params = lastSeen(GENERATION)?.body.parameters;
    expect(params.tools[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(params.tool_choice).toBe('auto');
  });

  it('answers an Anthropic client on /v1/messages, plain and streamed', async () => {
    const ask = { model: 'qwen-plus', max_tokens: 100, messages: SAY_HELLO };
    const msg = await t.anthropic().messages.create(ask);
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from Qwen' }]);
    expect(msg.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 });
    expect(msg.stop_reason).toBe('end_turn');
    const final = await t.anthropic().messages.stream(ask).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Qwen' }]);
    expect(final.usage.output_tokens).toBe(3);
  });

  it('turns web search on for a model named <model>-internet', async () => {
    const r = await t.ask('qwen-plus-internet', 'News?');
    expect(r.choices[0].message.content).toBe('Hello from Qwen');
    const sent = lastSeen(GENERATION);
    expect(sent?.body.model).toBe('qwen-plus');
    expect(sent?.body.parameters.enable_search).toBe(true);
  });

  it('relays embeddings in DashScope shape, vectors in input order, billed on its token count', async () => {
    const result = await t.billed(bill(8, 0), () =>
      // Floats asked for explicitly: the gateway answers converted embeddings as floats whatever the client asks.
      t
        .openai()
        .embeddings.create({ model: 'text-embedding-v3', input: ['one', 'three'], encoding_format: 'float' }),
    );
    expect(result.data.map((d) => d.embedding)).toEqual([
      [3, 0, 0.5],
      [5, 1, 0.5],
    ]);
    expect(result.usage.prompt_tokens).toBe(8);
    expect(lastSeen('/api/v1/services/embeddings/text-embedding/text-embedding')?.body).toEqual({
      model: 'text-embedding-v3',
      input: { texts: ['one', 'three'] },
      parameters: { text_type: 'query' },
    });
  });

  it('relays rerank to text-rerank and answers in the rerank shape', async () => {
    const documents = ['Cats eat fish.', 'The giant panda eats bamboo.'];
    const result = await t.billed(bill(24, 0), async () => {
      const res = await fetch(`${t.server.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gte-rerank', query: 'What eats bamboo?', documents, top_n: 1 }),
      });
      return { status: res.status, body: (await res.json()) as any };
    });
    expect(result.status).toBe(200);
    expect(result.body.results).toEqual([
      { index: 1, relevance_score: 0.9, document: { text: 'The giant panda eats bamboo.' } },
    ]);
    expect(lastSeen('/api/v1/services/rerank/text-rerank/text-rerank')?.body).toEqual({
      model: 'gte-rerank',
      input: { query: 'What eats bamboo?', documents },
      parameters: { top_n: 1 },
    });
  });

  it('generates Wanx images through the async task, polled to its end, billed per image', async () => {
    const polledBefore = polls().length;
    const { result, log, user, userUsed } = await charged(t, () =>
      t
        .openai()
        .images.generate({ model: 'wanx2.1-t2i-turbo', prompt: 'a red panda', n: 2, size: '1024x1024' }),
    );
    expect(result.data?.map((d) => d.url)).toEqual([
      'https://dashscope-result.example/task-1/0.png',
      'https://dashscope-result.example/task-1/1.png',
    ]);
    expect(result.data?.[0].revised_prompt).toBe('a red panda, detailed');
    expect(typeof result.created).toBe('number');
    const submit = lastSeen('/api/v1/services/aigc/text2image/image-synthesis');
    expect(submit?.headers['x-dashscope-async']).toBe('enable');
    expect(submit?.body).toEqual({
      model: 'wanx2.1-t2i-turbo',
      input: { prompt: 'a red panda' },
      parameters: { n: 2, size: '1024*1024' },
    });
    const polled = polls().slice(polledBefore);
    expect(polled.map((p) => p.method)).toEqual(['GET', 'GET', 'GET']);
    expect(polled.every((p) => p.headers.authorization === `Bearer ${GOOD_KEY}`)).toBe(true);
    // ModelPrice 0.02 per 1024x1024 image x 2 images x QuotaPerUnit x group ratio 1.
    const expected = Math.round(0.02 * 2 * t.server.ctx.options.float('QuotaPerUnit'));
    expect(log.quota).toBe(expected);
    expect([user, userUsed]).toEqual([expected, expected]);
  });

  it('maps a failed image task into an OpenAI error, and bills nothing', async () => {
    const err = await t.unbilled(() =>
      failed(t.openai().images.generate({ model: 'wanx2.1-t2i-turbo', prompt: 'something forbidden', n: 1 })),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(400);
    expect(err.error.code).toBe('DataInspectionFailed');
    expect(err.error.message).toContain('inappropriate content');
  });

  it("maps DashScope's out-of-balance error into OpenAI's and Anthropic's protocols, without the key", async () => {
    await t.unbilled(async () => {
      const err = await failed(t.ask('qwen-arrears'));
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err.status).toBe(429);
      expect(err.error).toMatchObject({ type: 'insufficient_quota', code: 'Arrearage' });
      expect(err.error.message).toContain('good standing');
      expect(JSON.stringify(err.error)).not.toContain(GOOD_KEY);

      const aerr = await failed(t.askAnthropic('qwen-arrears'));
      expect(aerr).toBeInstanceOf(Anthropic.APIError);
      expect(aerr.status).toBe(429);
      expect(aerr.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
      expect(JSON.stringify(aerr.error)).not.toContain(GOOD_KEY);
    });
  });

  it('maps an error frame at the start of a stream, and a refused key, without the key', async () => {
    const filtered = await failed(streamChat(t.openai(), { model: 'qwen-filtered', messages: HI }));
    expect(filtered).toBeInstanceOf(OpenAI.APIError);
    expect(filtered.status).toBe(400);
    expect(filtered.error.code).toBe('DataInspectionFailed');

    const revoked = await failed(t.askAnthropic('qwen-revoked'));
    expect(revoked).toBeInstanceOf(Anthropic.APIError);
    expect(revoked.status).toBe(503);
    expect(revoked.error.error.message).toContain('refused the credentials of the channel');
    expect(JSON.stringify(revoked.error)).not.toContain(BAD_KEY);
  });

  it('passes the channel test and lists the models of the account', async () => {
    const test = await t.admin.get(`/api/channel/test/${t.ids.dashscope}`);
    expect(test.success, test.message).toBe(true);
    expect(lastSeen(GENERATION)?.body.model).toBe('qwen-plus');

    const models = await t.admin.get(`/api/channel/fetch_models/${t.ids.dashscope}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual(['qwen-plus', 'qwen-turbo']);
  });
});
