import Anthropic from '@anthropic-ai/sdk';
import { channelTypeInfo, Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolverForTests } from '../src/infra/ssrf.ts';
import { openExchange } from '../src/relay/providers/xunfei/socket.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import {
  CF_ANSWER,
  CF_EMBED_TOKENS,
  type CloudflareMock,
  startCloudflareMock,
} from './support/mock-cloudflare.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { SPARK_ANSWER, SPARK_CALL, type SparkMock, startSparkMock } from './support/mock-spark.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * iFlytek Spark (type 18), Google PaLM2 (type 11, served by the Gemini API) and Cloudflare Workers AI
 * (type 39) channels, made by an admin through the console and used with the official OpenAI and Anthropic
 * clients against mocks that check what the real providers check: Spark's HMAC-signed WebSocket URL (the
 * mock recomputes the signature and refuses the upgrade otherwise), Gemini's API key, Cloudflare's API token
 * and account path. Each charge is compared with the usage priced by hand (model ratio 1, completion ratio
 * 2, group ratio 1: prompt + 2 x completion).
 */
const SPARK_APPS = {
  a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6: { appId: '5f2e8a1c', apiSecret: 'NmQ3ZTkxYjJhNGM1ZDZlN2Y4YTliMGMx' },
};
const SPARK_KEY = '5f2e8a1c|NmQ3ZTkxYjJhNGM1ZDZlN2Y4YTliMGMx|a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const SPARK_FORGED = '5f2e8a1c|bm90LXRoZS1hcHAtc2VjcmV0LWF0LWFsbA|a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';

const CF_ACCOUNT = '0123456789abcdef0123456789abcdef';
const CF_TOKEN = 'Sn3lZJTBX6kkg7OdcBUAxOO963GEIyGQqnFTOFYY';
const CF_OTHER_TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AB';
const CF_CHAT = '@cf/meta/llama-3.1-8b-instruct';
const CF_EMBED = '@cf/baai/bge-base-en-v1.5';

const MODELS = [
  'SparkDesk-v3.5',
  '4.0Ultra',
  'spark-max-32k',
  'spark-house',
  'spark-forged',
  'chat-bison-001',
  'PaLM-2',
  'embedding-gecko-001',
  'palm-mapped',
  CF_CHAT,
  CF_EMBED,
  'cf-legacy',
  'cf-other',
  'cf-bad-token',
  'cf-no-account',
  'cf-unknown',
];

/** Gemini's text recording, as the hub counts it: output includes the thought tokens. */
const GEMINI_TEXT = fixtureJson('google/generate-content/text.json');
const GEMINI_USAGE = {
  prompt: GEMINI_TEXT.usageMetadata.promptTokenCount,
  completion: GEMINI_TEXT.usageMetadata.candidatesTokenCount + GEMINI_TEXT.usageMetadata.thoughtsTokenCount,
};

describe('iFlytek Spark, Google PaLM2 and Cloudflare Workers AI channels', () => {
  let server: TestServer;
  let spark: SparkMock;
  let gemini: FormatsMock;
  let cf: CloudflareMock;
  let admin: ConsoleClient;
  let apiKey: string;
  let tokenId: number;
  let userId: number;
  const channelIds: Record<string, number> = {};

  const openai = () => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });

  async function addChannel(name: string, body: Record<string, unknown>) {
    const r = await admin.post('/api/channel/', { name, group: 'default', auto_ban: 0, ...body });
    expect(r.success, r.message).toBe(true);
    channelIds[name] = r.data.ids[0];
  }

  beforeAll(async () => {
    spark = await startSparkMock(SPARK_APPS);
    gemini = await startFormatsMock();
    cf = await startCloudflareMock({ [CF_TOKEN]: CF_ACCOUNT, [CF_OTHER_TOKEN]: 'f'.repeat(32) });
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await loginAs(server, { username: 'buyer', quota: 50_000_000 });
    userId = user.userId;
    const tk = await user.post('/api/token/', { name: 'app', remain_quota: 10_000_000 });
    expect(tk.success, tk.message).toBe(true);
    apiKey = `sk-${tk.data[0].key}`;
    tokenId = tk.data[0].id;
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, n])));
    await server.ctx.options.set('ModelRatio', ratio(1));
    await server.ctx.options.set('CompletionRatio', ratio(2));

    await addChannel('spark', {
      type: 18,
      key: SPARK_KEY,
      base_url: spark.url,
      models: ['SparkDesk-v3.5', '4.0Ultra', 'spark-max-32k', 'spark-house'],
      setting: JSON.stringify({ api_version: 'v3.1' }),
    });
    await addChannel('spark-forged', {
      type: 18,
      key: SPARK_FORGED,
      base_url: spark.url,
      models: ['spark-forged'],
      model_mapping: { 'spark-forged': 'SparkDesk-v3.5' },
    });
    await addChannel('palm', {
      type: 11,
      key: 'gm-mock',
      base_url: gemini.url,
      models: ['chat-bison-001', 'PaLM-2', 'embedding-gecko-001'],
    });
    await addChannel('palm-mapped', {
      type: 11,
      key: 'gm-mock',
      base_url: gemini.url,
      models: ['palm-mapped'],
      model_mapping: { 'palm-mapped': 'gemini-2.5-pro' },
    });
    await addChannel('cf', {
      type: 39,
      key: CF_TOKEN,
      base_url: cf.url,
      models: [CF_CHAT, CF_EMBED, 'cf-unknown'],
      setting: JSON.stringify({ account_id: CF_ACCOUNT }),
    });
    await addChannel('cf-legacy', {
      type: 39,
      key: CF_TOKEN,
      base_url: `${cf.url}/client/v4/accounts/${CF_ACCOUNT}/ai`,
      models: ['cf-legacy'],
      model_mapping: { 'cf-legacy': CF_CHAT },
    });
    await addChannel('cf-other', {
      type: 39,
      key: CF_TOKEN,
      base_url: cf.url,
      other: CF_ACCOUNT,
      models: ['cf-other'],
      model_mapping: { 'cf-other': CF_CHAT },
    });
    await addChannel('cf-bad-token', {
      type: 39,
      key: CF_OTHER_TOKEN,
      base_url: cf.url,
      models: ['cf-bad-token'],
      model_mapping: { 'cf-bad-token': CF_CHAT },
      setting: JSON.stringify({ account_id: CF_ACCOUNT }),
    });
    await addChannel('cf-no-account', {
      type: 39,
      key: CF_TOKEN,
      base_url: cf.url,
      models: ['cf-no-account'],
    });
  });
  afterAll(async () => {
    await server?.close();
    await spark?.close();
    await gemini?.close();
    await cf?.close();
  });

  async function lastLogId(): Promise<number> {
    await flushLedger(server.ctx);
    const row = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  async function rowsAfter(id: number) {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('id', '>', id)
      .where('type', '=', 2)
      .execute();
  }

  /** The user's and the API key's used quota. */
  async function spent(): Promise<{ user: number; token: number }> {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select('used_quota')
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    return { user: Number(u.used_quota), token: Number(t.used_quota) };
  }

  /** Runs a call and checks its one log row and the charge to the user and the key: prompt + 2 x completion. */
  async function charged(
    run: () => Promise<unknown>,
    usage: { prompt: number; completion: number },
    channel: string,
  ) {
    const before = await lastLogId();
    const was = await spent();
    await run();
    const rows = await rowsAfter(before);
    expect(rows).toHaveLength(1);
    const quota = usage.prompt + 2 * usage.completion;
    expect(rows[0].prompt_tokens).toBe(usage.prompt);
    expect(rows[0].completion_tokens).toBe(usage.completion);
    expect(rows[0].quota).toBe(quota);
    expect(rows[0].channel_id).toBe(channelIds[channel]);
    const now = await spent();
    expect(now.user - was.user).toBe(quota);
    expect(now.token - was.token).toBe(quota);
  }

  async function failure(p: Promise<unknown>) {
    return p.then(
      () => {
        throw new Error('expected the call to fail');
      },
      (e: unknown) => e as { status?: number; message?: string; type?: string; error?: any },
    );
  }

  /** A failure's text never carries a key, a secret or a signature. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    for (const part of [
      ...SPARK_KEY.split('|').slice(1),
      ...SPARK_FORGED.split('|'),
      CF_TOKEN,
      CF_OTHER_TOKEN,
    ])
      expect(text).not.toContain(part);
    expect(text).not.toContain('authorization=');
  }

  describe('iFlytek Spark', () => {
    it('signs the WebSocket URL the provider verifies and relays a plain answer with usage', async () => {
      const callsBefore = spark.calls.length;
      await charged(
        async () => {
          const r = await openai().chat.completions.create({
            model: 'SparkDesk-v3.5',
            messages: [
              { role: 'system', content: 'You are helpful.' },
              { role: 'user', content: '你好' },
            ],
            temperature: 0.5,
            max_tokens: 200,
            user: 'user-42',
          });
          expect(r.choices[0].message.content).toBe(SPARK_ANSWER.deltas.join(''));
          expect(r.choices[0].finish_reason).toBe('stop');
          expect(r.usage?.prompt_tokens).toBe(SPARK_ANSWER.usage.prompt);
          expect(r.usage?.completion_tokens).toBe(SPARK_ANSWER.usage.completion);
        },
        SPARK_ANSWER.usage,
        'spark',
      );
      expect(spark.calls.length).toBe(callsBefore + 1);
      const call = spark.calls.at(-1);
      expect(call?.path).toBe('/v3.5/chat');
      expect(call?.appId).toBe('5f2e8a1c');
      expect(call?.domain).toBe('generalv3.5');
      expect(call?.body).toEqual({
        // A converted call sends no end-user id by default (global.converted_user_id).
        header: { app_id: '5f2e8a1c' },
        parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 200 } },
        payload: {
          message: {
            text: [
              { role: 'system', content: 'You are helpful.' },
              { role: 'user', content: '你好' },
            ],
          },
        },
      });
    });

    it('streams frames as they come through the OpenAI client, with usage', async () => {
      let text = '';
      let chunks = 0;
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      await charged(
        async () => {
          const stream = await openai().chat.completions.create({
            model: 'SparkDesk-v3.5',
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: '介绍一下你自己' }],
          });
          for await (const chunk of stream) {
            const delta = chunk.choices[0]?.delta?.content ?? '';
            if (delta) chunks++;
            text += delta;
            finish = chunk.choices[0]?.finish_reason ?? finish;
            if (chunk.usage) usage = chunk.usage;
          }
        },
        SPARK_ANSWER.usage,
        'spark',
      );
      expect(text).toBe(SPARK_ANSWER.deltas.join(''));
      expect(chunks).toBe(SPARK_ANSWER.deltas.length);
      expect(finish).toBe('stop');
      expect(usage?.prompt_tokens).toBe(SPARK_ANSWER.usage.prompt);
      expect(usage?.completion_tokens).toBe(SPARK_ANSWER.usage.completion);
    });

    it('picks the version from the model name, else from the api_version setting', async () => {
      const ask = (model: string) =>
        openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
      const seen: Array<[string, string]> = [];
      for (const model of ['4.0Ultra', 'spark-max-32k', 'spark-house']) {
        const r = await ask(model);
        expect(r.choices[0].message.content).toBe(SPARK_ANSWER.deltas.join(''));
        const call = spark.calls.at(-1);
        seen.push([call?.path ?? '', call?.domain ?? '']);
      }
      expect(seen).toEqual([
        ['/v4.0/chat', '4.0Ultra'],
        ['/chat/max-32k', 'max-32k'],
        ['/v3.1/chat', 'generalv3'],
      ]);
    });

    it('answers an Anthropic client, plain and streamed', async () => {
      await charged(
        async () => {
          const msg = await anthropic().messages.create({
            model: 'SparkDesk-v3.5',
            max_tokens: 256,
            system: 'Answer briefly.',
            messages: [{ role: 'user', content: '你是谁' }],
          });
          expect(msg.content).toHaveLength(1);
          expect(msg.content[0]).toMatchObject({ type: 'text', text: SPARK_ANSWER.deltas.join('') });
          expect(msg.usage.input_tokens).toBe(SPARK_ANSWER.usage.prompt);
          expect(msg.usage.output_tokens).toBe(SPARK_ANSWER.usage.completion);
          expect(msg.stop_reason).toBe('end_turn');
        },
        SPARK_ANSWER.usage,
        'spark',
      );
      expect(spark.calls.at(-1)?.body.payload.message.text[0]).toEqual({
        role: 'system',
        content: 'Answer briefly.',
      });
      await charged(
        async () => {
          const msg = await anthropic()
            .messages.stream({
              model: 'SparkDesk-v3.5',
              max_tokens: 256,
              messages: [{ role: 'user', content: '你是谁' }],
            })
            .finalMessage();
          expect(msg.content[0]).toMatchObject({ type: 'text', text: SPARK_ANSWER.deltas.join('') });
          expect(msg.usage.output_tokens).toBe(SPARK_ANSWER.usage.completion);
        },
        SPARK_ANSWER.usage,
        'spark',
      );
    });

    it('sends OpenAI tools as functions and gives the function call back as a tool call', async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ];
      const r = await openai().chat.completions.create({
        model: 'SparkDesk-v3.5',
        messages: [{ role: 'user', content: '合肥天气怎么样' }],
        tools,
      });
      expect(r.choices[0].finish_reason).toBe('tool_calls');
      const call = r.choices[0].message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function).toEqual(SPARK_CALL);
      expect(spark.calls.at(-1)?.body.payload.functions).toEqual({
        text: [
          {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
      });

      let streamed = '';
      let name = '';
      const stream = await openai().chat.completions.create({
        model: 'SparkDesk-v3.5',
        stream: true,
        messages: [{ role: 'user', content: '合肥天气怎么样' }],
        tools,
      });
      for await (const chunk of stream) {
        const tc = chunk.choices[0]?.delta?.tool_calls?.[0];
        if (tc?.function?.name) name = tc.function.name;
        streamed += tc?.function?.arguments ?? '';
      }
      expect(name).toBe(SPARK_CALL.name);
      expect(streamed).toBe(SPARK_CALL.arguments);
    });

    it('maps error frames to statuses in the OpenAI and Anthropic protocols, charging nothing', async () => {
      const before = await lastLogId();
      const was = await spent();

      const filtered = await failure(
        openai().chat.completions.create({
          model: 'SparkDesk-v3.5',
          messages: [{ role: 'user', content: 'trigger:filter' }],
        }),
      );
      expect(filtered.status).toBe(400);
      expect(filtered.message).toContain('input content audit failed');
      expectNoSecret(filtered.message);

      const limited = await failure(
        openai().chat.completions.create({
          model: 'SparkDesk-v3.5',
          messages: [{ role: 'user', content: 'trigger:limit' }],
        }),
      );
      expect(limited.status).toBe(429);

      const streamed = await failure(
        (async () => {
          const s = await openai().chat.completions.create({
            model: 'SparkDesk-v3.5',
            stream: true,
            messages: [{ role: 'user', content: 'trigger:limit' }],
          });
          for await (const _ of s);
        })(),
      );
      expect(streamed.status).toBe(429);

      const aFiltered = await failure(
        anthropic().messages.create({
          model: 'SparkDesk-v3.5',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'trigger:filter' }],
        }),
      );
      expect(aFiltered.status).toBe(400);
      expect(aFiltered.error?.error?.type).toBe('invalid_request_error');
      expectNoSecret(aFiltered.error?.error?.message);

      const aLimited = await failure(
        anthropic().messages.create({
          model: 'SparkDesk-v3.5',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'trigger:limit' }],
        }),
      );
      expect(aLimited.status).toBe(429);
      expect(aLimited.error?.error?.type).toBe('rate_limit_error');

      expect(await rowsAfter(before)).toHaveLength(0);
      expect(await spent()).toEqual(was);
    });

    it("is refused on the upgrade for a wrong APISecret: admins read why, callers get the gateway's 503, no key shown", async () => {
      const refusals = spark.refusals.length;
      const r = await admin.get(`/api/channel/test/${channelIds['spark-forged']}`);
      expect(r.success).toBe(false);
      expect(r.message).toContain('HMAC signature cannot be verified');
      for (const part of SPARK_FORGED.split('|').slice(1)) expect(r.message).not.toContain(part);
      expect(spark.refusals.slice(refusals)).toEqual(['HMAC signature cannot be verified']);

      const calls = spark.calls.length;
      const err = await failure(
        openai().chat.completions.create({
          model: 'spark-forged',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(err.status).toBe(503);
      expect(err.message).toContain('refused the credentials of the channel');
      expect(err.message).not.toContain('HMAC signature cannot be verified');
      expectNoSecret(err.message);
      expect(spark.calls.length).toBe(calls);
    });

    it('closes the socket when the client leaves a stream, and logs what was sent', async () => {
      const abandoned = spark.abandoned;
      const before = await lastLogId();
      const controller = new AbortController();
      const stream = await openai().chat.completions.create(
        {
          model: 'SparkDesk-v3.5',
          stream: true,
          messages: [{ role: 'user', content: 'trigger:slow' }],
        },
        { signal: controller.signal },
      );
      let got = 0;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content) got++;
        if (got === 2) {
          controller.abort();
          break;
        }
      }
      expect(got).toBe(2);
      await expect.poll(() => spark.abandoned).toBe(abandoned + 1);
      // The cut stream is settled after the socket closes: its log row says the client left.
      await expect.poll(async () => (await rowsAfter(before)).length).toBe(1);
      const [row] = await rowsAfter(before);
      expect(row.content).toMatch(/client disconnected/);
    });

    it('refuses keys that are not APPID|APISecret|APIKey, and bad settings, at channel save', async () => {
      for (const key of ['only|two', 'app id|secret|key', '5f2e8a1c|secret|', 'a|b|c|d']) {
        const r = await admin.post('/api/channel/', {
          type: 18,
          name: 'bad-spark',
          key,
          base_url: spark.url,
          models: ['SparkDesk-v3.5'],
          group: 'default',
        });
        expect(r.status).toBe(400);
        expect(r.success).toBe(false);
        expect(r.message).toContain('APPID|APISecret|APIKey');
      }
      const r = await admin.post('/api/channel/', {
        type: 18,
        name: 'bad-spark-version',
        key: SPARK_KEY,
        base_url: spark.url,
        models: ['SparkDesk-v3.5'],
        group: 'default',
        setting: JSON.stringify({ api_version: 'latest' }),
      });
      expect(r.status).toBe(400);
      expect(r.message).toContain('api_version');
    });

    it('connects through the SSRF guard: link-local names and addresses are refused', async () => {
      const req = { signal: { aborted: false, on() {} }, options: server.ctx.options };
      setResolverForTests(async () => ['169.254.169.254']);
      try {
        const named = await openExchange('ws://metadata.example/v3.5/chat', '{}', req, []).catch((e) => e);
        expect(named.code).toBe('upstream_address_refused');
      } finally {
        setResolverForTests(null);
      }
      const literal = await openExchange('ws://169.254.169.254/v3.5/chat', '{}', req, []).catch((e) => e);
      expect(literal.code).toBe('upstream_address_refused');
    });

    it('passes the channel test against the mock', async () => {
      const r = await admin.get(`/api/channel/test/${channelIds.spark}`);
      expect(r.success, r.message).toBe(true);
      expect(spark.calls.at(-1)?.body.parameter.chat.max_tokens).toBe(10);
    });
  });

  describe('Google PaLM2 (deprecated, served by Gemini)', () => {
    it('is marked deprecated', () => {
      expect(channelTypeInfo(11)?.deprecated).toMatch(/PaLM API/);
    });

    it('serves a PaLM model name with gemini-2.0-flash, plain and streamed, with usage', async () => {
      await charged(
        async () => {
          const r = await openai().chat.completions.create({
            model: 'chat-bison-001',
            messages: [{ role: 'user', content: 'How many r are in strawberry?' }],
          });
          expect(r.choices[0].message.content).toBe(GEMINI_TEXT.candidates[0].content.parts[0].text);
          expect(r.usage?.prompt_tokens).toBe(GEMINI_USAGE.prompt);
          expect(r.usage?.completion_tokens).toBe(GEMINI_USAGE.completion);
        },
        GEMINI_USAGE,
        'palm',
      );
      const call = gemini.requests.at(-1);
      expect(call?.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
      expect(call?.headers['x-goog-api-key']).toBe('gm-mock');

      const chunks = fixtureChunks('google/generate-content/text.chunks.txt').map((c) => JSON.parse(c));
      const expected = chunks
        .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
        .filter((p: any) => !p.thought)
        .map((p: any) => p.text ?? '')
        .join('');
      let text = '';
      const stream = await openai().chat.completions.create({
        model: 'PaLM-2',
        stream: true,
        messages: [{ role: 'user', content: 'How many r are in strawberry?' }],
      });
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe(expected);
      expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent');
      expect(gemini.requests.at(-1)?.query).toContain('alt=sse');
    });

    it('follows the channel model mapping instead', async () => {
      const r = await openai().chat.completions.create({
        model: 'palm-mapped',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(r.choices[0].message.content).toBe(GEMINI_TEXT.candidates[0].content.parts[0].text);
      expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    });

    it('serves embedding-gecko-001 with the Gemini embedding model', async () => {
      const r = await openai().embeddings.create({
        model: 'embedding-gecko-001',
        input: ['hello', 'palm'],
        encoding_format: 'float',
      });
      expect(r.data).toHaveLength(2);
      expect(r.data[0].embedding).toEqual([0.05, 0.25, -0.5]);
      expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    });

    it('passes the channel test and lists the Gemini models of the key', async () => {
      const t = await admin.get(`/api/channel/test/${channelIds.palm}`);
      expect(t.success, t.message).toBe(true);
      expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
      const models = await admin.get(`/api/channel/fetch_models/${channelIds.palm}`);
      expect(models.success, models.message).toBe(true);
      expect(models.data).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro']);
    });
  });

  describe('Cloudflare Workers AI', () => {
    const chatPath = `/client/v4/accounts/${CF_ACCOUNT}/ai/v1/chat/completions`;

    it('reaches the account path from the account_id setting, plain and streamed, with usage', async () => {
      await charged(
        async () => {
          const r = await openai().chat.completions.create({
            model: CF_CHAT,
            messages: [{ role: 'user', content: 'hello' }],
          });
          expect(r.choices[0].message.content).toBe(CF_ANSWER.text);
          expect(r.usage?.prompt_tokens).toBe(CF_ANSWER.usage.prompt);
        },
        CF_ANSWER.usage,
        'cf',
      );
      expect(cf.requests.at(-1)?.path).toBe(chatPath);
      expect(cf.requests.at(-1)?.auth).toBe(`Bearer ${CF_TOKEN}`);

      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      await charged(
        async () => {
          const stream = await openai().chat.completions.create({
            model: CF_CHAT,
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: 'hello' }],
          });
          for await (const chunk of stream) {
            text += chunk.choices[0]?.delta?.content ?? '';
            if (chunk.usage) usage = chunk.usage;
          }
        },
        CF_ANSWER.usage,
        'cf',
      );
      expect(text).toBe(CF_ANSWER.deltas.join(''));
      expect(usage?.prompt_tokens).toBe(CF_ANSWER.usage.prompt);
      expect(usage?.completion_tokens).toBe(CF_ANSWER.usage.completion);
      expect(cf.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    });

    it('answers an Anthropic client through the hub', async () => {
      await charged(
        async () => {
          const msg = await anthropic().messages.create({
            model: CF_CHAT,
            max_tokens: 64,
            messages: [{ role: 'user', content: 'hello' }],
          });
          expect(msg.content[0]).toMatchObject({ type: 'text', text: CF_ANSWER.text });
          expect(msg.usage.output_tokens).toBe(CF_ANSWER.usage.completion);
        },
        CF_ANSWER.usage,
        'cf',
      );
      expect(cf.requests.at(-1)?.path).toBe(chatPath);
    });

    it('relays embeddings to the account path', async () => {
      const before = await lastLogId();
      const r = await openai().embeddings.create({
        model: CF_EMBED,
        input: ['hello', 'cf'],
        encoding_format: 'float',
      });
      expect(r.data.map((d) => d.embedding)).toEqual([
        [0.5, 0.5, -0.25],
        [0.2, 0.5, -0.25],
      ]);
      expect(cf.requests.at(-1)?.path).toBe(`/client/v4/accounts/${CF_ACCOUNT}/ai/v1/embeddings`);
      const rows = await rowsAfter(before);
      expect(rows).toHaveLength(1);
      expect(rows[0].quota).toBe(CF_EMBED_TOKENS);
    });

    it('takes a base URL that already names the account, and the account in other', async () => {
      for (const model of ['cf-legacy', 'cf-other']) {
        const r = await openai().chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'hi' }],
        });
        expect(r.choices[0].message.content).toBe(CF_ANSWER.text);
        expect(cf.requests.at(-1)?.path).toBe(chatPath);
        expect(cf.requests.at(-1)?.body.model).toBe(CF_CHAT);
      }
    });

    it("maps Cloudflare's errors into the client's protocol without the token", async () => {
      const unknown = await failure(
        openai().chat.completions.create({
          model: 'cf-unknown',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(unknown.status).toBe(400);
      expect(unknown.message).toContain('No such model cf-unknown');
      expectNoSecret(unknown.message);

      const refused = await failure(
        anthropic().messages.create({
          model: 'cf-bad-token',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(refused.status).toBe(403);
      expect(refused.error?.error?.type).toBe('permission_error');
      expect(refused.error?.error?.message).toContain('Authentication error');
      expectNoSecret(refused.error?.error?.message);

      const noAccount = await failure(
        openai().chat.completions.create({
          model: 'cf-no-account',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(noAccount.status).toBe(500);
      expect(noAccount.message).toContain('account_id');
    });

    it('refuses a key that is not an API token, and a bad account id, at channel save', async () => {
      for (const key of ['short', `Bearer ${CF_TOKEN}`, 'x'.repeat(12)]) {
        const r = await admin.post('/api/channel/', {
          type: 39,
          name: 'bad-cf',
          key,
          base_url: cf.url,
          models: [CF_CHAT],
          group: 'default',
        });
        expect(r.status).toBe(400);
        expect(r.message).toContain('API token');
      }
      const r = await admin.post('/api/channel/', {
        type: 39,
        name: 'bad-cf-account',
        key: CF_TOKEN,
        base_url: cf.url,
        models: [CF_CHAT],
        group: 'default',
        setting: JSON.stringify({ account_id: 'my-account' }),
      });
      expect(r.status).toBe(400);
      expect(r.message).toContain('account_id');
    });

    it('passes the channel test and lists the served models of the account', async () => {
      const t = await admin.get(`/api/channel/test/${channelIds.cf}`);
      expect(t.success, t.message).toBe(true);
      expect(cf.requests.at(-1)?.path).toBe(chatPath);
      const models = await admin.get(`/api/channel/fetch_models/${channelIds.cf}`);
      expect(models.success, models.message).toBe(true);
      expect(models.data).toEqual([CF_EMBED, CF_CHAT].sort());
      expect(cf.requests.at(-1)?.path).toBe(`/client/v4/accounts/${CF_ACCOUNT}/ai/models/search`);
    });
  });
});
