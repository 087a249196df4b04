import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fetchUpstreamModels } from '../src/modules/channels/fetch-models.ts';
import { testChannel } from '../src/relay/call/channel-test.ts';
import { anthropicAnswer, geminiAnswer } from './support/fixture-answers.ts';
import { formatEndpoints, jsonOf } from './support/format-endpoints.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * What the Anthropic and Gemini format endpoints send upstream and bill: a body sent byte for byte unless
 * edited, a stream the client left billed for what it received, embeddings converted between Gemini and
 * OpenAI, channel tests and model lists in each protocol, and Gemini streams without alt=sse as one JSON
 * array. Keys, errors, limits, counts and model lists: relay-format-endpoints.test.ts.
 */
describe('relay: format endpoints', () => {
  const relay = formatEndpoints(startServer);

  it('sends a body it did not change upstream byte for byte, and an edited one re-serialised', async () => {
    const text =
      '{ "max_tokens": 50,\n  "messages": [ {"role":"user","content":"Hello \\u00e9"} ],  "model": "claude-x" }';
    const res = await relay.post('/v1/messages', text, { 'x-api-key': relay.key });
    expect(res.status).toBe(200);
    expect(relay.mock.requests.at(-1)?.raw).toBe(text);
    // The thinking adapter edits the body: it goes as JSON the gateway wrote.
    await relay.addClaude('claude-x-thinking');
    const thinking = await relay.post(
      '/v1/messages',
      { model: 'claude-x-thinking', max_tokens: 2000, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-api-key': relay.key },
    );
    expect(thinking.status).toBe(200);
    const sent = relay.mock.requests.at(-1)?.body;
    expect(sent).toMatchObject({ model: 'claude-x', thinking: { type: 'enabled', budget_tokens: 1600 } });
  });

  it("adds Gemini's safety settings after the client's text, and none to a body that has its own", async () => {
    const text = '{"contents": [ {"role":"user","parts":[{"text":"Hi \\"there\\"\\n\\u00e9"}]} ] }\n';
    const plain = await relay.post('/v1beta/models/gemini-x:generateContent', text, {
      'x-goog-api-key': relay.key,
    });
    expect(plain.status).toBe(200);
    const raw = relay.mock.requests.at(-1)?.raw as string;
    expect(
      raw.startsWith(
        '{"contents": [ {"role":"user","parts":[{"text":"Hi \\"there\\"\\n\\u00e9"}]} ] ,"safetySettings":[',
      ),
    ).toBe(true);
    const sent = JSON.parse(raw);
    expect(sent.contents[0].parts[0].text).toBe('Hi "there"\né');
    expect(sent.safetySettings.length).toBeGreaterThan(3);
    expect(sent.safetySettings[0]).toEqual({
      category: expect.stringMatching(/^HARM_CATEGORY_/),
      threshold: 'OFF',
    });

    // Google reads `safety_settings` as the same field: the client's own settings are the only ones sent.
    const own =
      '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"safety_settings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]}';
    const snake = await relay.post('/v1beta/models/gemini-x:generateContent', own, {
      'x-goog-api-key': relay.key,
    });
    expect(snake.status).toBe(200);
    expect(relay.mock.requests.at(-1)?.raw).toBe(own);
  });

  it('bills a relayed Anthropic stream the client left for at least the text it received', async () => {
    await relay.addClaude('claude-slow');
    const abort = new AbortController();
    const res = await fetch(`${relay.server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': relay.key },
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
      await flushLedger(relay.server.ctx);
      return relay.server.ctx.logDb.db
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

  it('converts embeddings between Gemini and OpenAI, and passes Gemini to Gemini through', async () => {
    const one = await relay.post(
      '/v1beta/models/text-embedding-3-small:embedContent',
      { content: { parts: [{ text: 'hello world' }] } },
      { 'x-goog-api-key': relay.key },
    );
    expect(one.status).toBe(200);
    expect((await jsonOf(one)).embedding.values).toEqual([0.0023064255, -0.009327292, 0.015797347]);
    const batch = await relay.post(
      '/v1beta/models/text-embedding-3-small:batchEmbedContents',
      {
        requests: ['a', 'b'].map((text) => ({
          model: 'models/text-embedding-3-small',
          content: { parts: [{ text }] },
        })),
      },
      { 'x-goog-api-key': relay.key },
    );
    expect((await jsonOf(batch)).embeddings).toHaveLength(2);

    const openai = await relay.post(
      '/v1/embeddings',
      { model: 'gemini-embedding-001', input: ['hello', 'hello world'] },
      { authorization: `Bearer ${relay.key}` },
    );
    expect(openai.status).toBe(200);
    const data = (await jsonOf(openai)).data;
    expect(data.map((d: { embedding: number[] }) => d.embedding[0])).toEqual([0.05, 0.11]);
    expect(relay.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // A channel test of a Gemini channel with an embedding model sends an embeddings request.
    const gemini = await relay.server.ctx.db.db
      .selectFrom('channels')
      .selectAll()
      .where('type', '=', ChannelType.Gemini)
      .executeTakeFirstOrThrow();
    const tested = await testChannel(relay.server.ctx, gemini, 'gemini-embedding-001');
    expect(tested).toMatchObject({ success: true, status: 200 });
    expect(relay.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    // The official SDK asks for base64 unless told otherwise, and decodes float32 vectors from it.
    const sdk = await new OpenAI({
      apiKey: relay.key,
      baseURL: `${relay.server.url}/v1`,
      maxRetries: 0,
    }).embeddings.create({
      model: 'gemini-embedding-001',
      input: ['hello', 'hello world'],
    });
    expect(sdk.data.map((d) => d.embedding.length)).toEqual([3, 3]);
    expect(sdk.data[0].embedding[0]).toBeCloseTo(0.05, 6);
    expect(sdk.data[1].embedding[0]).toBeCloseTo(0.11, 6);

    const same = await relay.post(
      '/v1beta/models/gemini-embedding-001:embedContent',
      { content: { parts: [{ text: 'hello' }] } },
      { 'x-goog-api-key': relay.key },
    );
    expect((await jsonOf(same)).embedding.values[0]).toBe(0.05);
    expect(relay.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    await flushLedger(relay.server.ctx);
    const rows = await relay.server.ctx.logDb.db
      .selectFrom('logs')
      .select(['model_name', 'prompt_tokens', 'quota'])
      .where('type', '=', 2)
      .where('model_name', 'in', ['text-embedding-3-small', 'gemini-embedding-001'])
      .execute();
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r.prompt_tokens).toBeGreaterThan(0);
  });

  it('tests Anthropic and Gemini channels and fetches their model lists in their own protocols', async () => {
    await relay.server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    for (const [type, key, expected] of [
      [ChannelType.Anthropic, 'sk-ant-mock', 'claude-sonnet-4-5-20250929'],
      [ChannelType.Gemini, 'gm-mock', 'gemini-2.5-flash'],
    ] as const) {
      const models = await fetchUpstreamModels(relay.server.ctx, { type, baseUrl: relay.mock.url, key });
      expect(models).toContain(expected);
      const ch = relay.server.ctx.db.db.selectFrom('channels').selectAll().where('type', '=', type);
      const row = await ch.executeTakeFirstOrThrow();
      const result = await testChannel(
        relay.server.ctx,
        row,
        type === ChannelType.Anthropic ? 'claude-x' : 'gemini-x',
      );
      expect(result).toMatchObject({ success: true, status: 200, message: '' });
      const sent = relay.mock.requests.at(-1);
      if (type === ChannelType.Anthropic) {
        expect(sent?.path).toBe('/v1/messages');
        expect(sent?.body).toMatchObject({ model: 'claude-x', max_tokens: 10 });
      } else expect(sent?.path).toBe('/v1beta/models/gemini-x:generateContent');
    }
  });

  it('streams to Gemini clients without alt=sse as one JSON array, relayed or converted', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
    for (const model of ['gemini-x', 'claude-x']) {
      const res = await relay.post(`/v1beta/models/${model}:streamGenerateContent`, body, {
        'x-goog-api-key': relay.key,
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
});
