import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import {
  BAIDU_ANSWER,
  BAIDU_CALL,
  BAIDU_EMBED_TOKENS,
  BAIDU_STREAM,
  type BaiduMock,
  startBaiduMock,
} from './support/mock-baidu.ts';
import {
  startZhipuMock,
  ZHIPU_ANSWER,
  ZHIPU_EMBED_TOKENS,
  ZHIPU_STREAM,
  type ZhipuMock,
} from './support/mock-zhipu.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Baidu Wenxin (type 15) and Zhipu ChatGLM v3 (type 16) channels, made by an admin through the console, used
 * with the official OpenAI and Anthropic clients against mocks that check what the real providers check:
 * Baidu's token exchange and the access token on every call, Zhipu's HS256 JWT. Each answer's text and usage
 * are compared with what the mock sent, and the charge with the usage priced by hand (model ratio 1,
 * completion ratio 2, group ratio 1: prompt + 2 x completion).
 */
const BAIDU_APPS: Record<string, string> = {
  'ak-main': 'sk-main-7f3a9c',
  'ak-revoke': 'sk-revoke-51d2',
  'ak-flaky': 'sk-flaky-88e0',
  'ak-burst': 'sk-burst-2c44',
};
const ZHIPU_KEYS: Record<string, string> = { a1b2c3d4e5f60718: 'Zs3cr3tQpL9xWv2' };
const ZHIPU_KEY = 'a1b2c3d4e5f60718.Zs3cr3tQpL9xWv2';

const MODELS = [
  'ERNIE-4.0-8K',
  'ERNIE-Speed-128K',
  'Embedding-V1',
  'ernie-rate',
  'ernie-quota',
  'ernie-bad',
  'ernie-revoke',
  'ernie-flaky',
  'ernie-refused',
  'ernie-burst',
  'chatglm_turbo',
  'text_embedding',
  'chatglm-blocked',
  'chatglm-arrears',
  'chatglm-busy',
  'chatglm-forged',
];

describe('Baidu Wenxin and Zhipu ChatGLM channels', () => {
  let server: TestServer;
  let baidu: BaiduMock;
  let zhipu: ZhipuMock;
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
    baidu = await startBaiduMock(BAIDU_APPS);
    zhipu = await startZhipuMock(ZHIPU_KEYS);
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

    await addChannel('wenxin', {
      type: 15,
      key: 'ak-main|sk-main-7f3a9c',
      base_url: baidu.url,
      models: ['ERNIE-4.0-8K', 'ERNIE-Speed-128K', 'Embedding-V1', 'ernie-rate', 'ernie-quota', 'ernie-bad'],
    });
    await addChannel('wenxin-revoke', {
      type: 15,
      key: 'ak-revoke|sk-revoke-51d2',
      base_url: baidu.url,
      models: ['ernie-revoke'],
      model_mapping: { 'ernie-revoke': 'ERNIE-3.5-8K' },
    });
    await addChannel('wenxin-flaky', {
      type: 15,
      key: 'ak-flaky|sk-flaky-88e0',
      base_url: baidu.url,
      models: ['ernie-flaky'],
      model_mapping: { 'ernie-flaky': 'ERNIE-Lite-8K' },
    });
    await addChannel('wenxin-refused', {
      type: 15,
      key: 'ak-unknown|sk-never-issued',
      base_url: baidu.url,
      models: ['ernie-refused'],
    });
    await addChannel('wenxin-burst', {
      type: 15,
      key: 'ak-burst|sk-burst-2c44',
      base_url: baidu.url,
      models: ['ernie-burst'],
      model_mapping: { 'ernie-burst': 'ERNIE-Speed-8K' },
    });
    await addChannel('glm', {
      type: 16,
      key: ZHIPU_KEY,
      base_url: zhipu.url,
      models: ['chatglm_turbo', 'text_embedding', 'chatglm-blocked', 'chatglm-arrears', 'chatglm-busy'],
    });
    await addChannel('glm-forged', {
      type: 16,
      key: 'a1b2c3d4e5f60718.not-the-secret',
      base_url: zhipu.url,
      models: ['chatglm-forged'],
      model_mapping: { 'chatglm-forged': 'chatglm_turbo' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await baidu?.close();
    await zhipu?.close();
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

  /** A failure's text never carries a key, a secret or an access token. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    for (const [ak, sk] of Object.entries(BAIDU_APPS)) {
      expect(text).not.toContain(ak);
      expect(text).not.toContain(sk);
    }
    expect(text).not.toContain('mock-token');
    expect(text).not.toContain('Zs3cr3tQpL9xWv2');
  }

  describe('Baidu Wenxin', () => {
    it('exchanges the key for an access token once and calls the model endpoint with it', async () => {
      await charged(
        async () => {
          const r = await openai().chat.completions.create({
            model: 'ERNIE-4.0-8K',
            messages: [
              { role: 'system', content: 'You are helpful.' },
              { role: 'user', content: '你好' },
            ],
            temperature: 0,
            max_tokens: 100,
            user: 'user-42',
          });
          expect(r.choices[0].message.content).toBe(BAIDU_ANSWER.text);
          expect(r.choices[0].finish_reason).toBe('stop');
          expect(r.usage?.prompt_tokens).toBe(BAIDU_ANSWER.usage.prompt);
          expect(r.usage?.completion_tokens).toBe(BAIDU_ANSWER.usage.completion);
        },
        BAIDU_ANSWER.usage,
        'wenxin',
      );
      const call = baidu.calls.at(-1);
      expect(call?.path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro');
      expect(call?.token).toBe(baidu.tokenOf('ak-main'));
      expect(call?.body).toMatchObject({
        system: 'You are helpful.',
        messages: [{ role: 'user', content: '你好' }],
        temperature: 0.01,
        max_output_tokens: 100,
      });
      // A converted call sends no end-user id by default (global.converted_user_id, relay-end-user.test.ts).
      expect(call?.body.user_id).toBeUndefined();
      expect(call?.body.model).toBeUndefined();
      expect(baidu.exchanges.get('ak-main')).toBe(1);
    });

    it('streams through the OpenAI client with usage, reusing the cached token', async () => {
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      await charged(
        async () => {
          const stream = await openai().chat.completions.create({
            model: 'ERNIE-Speed-128K',
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: '北京天气' }],
          });
          for await (const chunk of stream) {
            text += chunk.choices[0]?.delta?.content ?? '';
            finish = chunk.choices[0]?.finish_reason ?? finish;
            if (chunk.usage) usage = chunk.usage;
          }
        },
        BAIDU_STREAM.usage,
        'wenxin',
      );
      expect(text).toBe(BAIDU_STREAM.deltas.join(''));
      expect(finish).toBe('stop');
      expect(usage?.prompt_tokens).toBe(BAIDU_STREAM.usage.prompt);
      expect(usage?.completion_tokens).toBe(BAIDU_STREAM.usage.completion);
      expect(baidu.calls.at(-1)?.path).toMatch(/\/chat\/ernie-speed-128k$/);
      expect(baidu.calls.at(-1)?.body.stream).toBe(true);
      expect(baidu.exchanges.get('ak-main')).toBe(1);
    });

    it('answers an Anthropic client, plain and streamed', async () => {
      await charged(
        async () => {
          const msg = await anthropic().messages.create({
            model: 'ERNIE-4.0-8K',
            max_tokens: 256,
            system: 'Answer briefly.',
            messages: [{ role: 'user', content: '你是谁' }],
          });
          expect(msg.content).toHaveLength(1);
          expect(msg.content[0]).toMatchObject({ type: 'text', text: BAIDU_ANSWER.text });
          expect(msg.usage.input_tokens).toBe(BAIDU_ANSWER.usage.prompt);
          expect(msg.usage.output_tokens).toBe(BAIDU_ANSWER.usage.completion);
          expect(msg.stop_reason).toBe('end_turn');
        },
        BAIDU_ANSWER.usage,
        'wenxin',
      );
      expect(baidu.calls.at(-1)?.body.system).toBe('Answer briefly.');
      await charged(
        async () => {
          const msg = await anthropic()
            .messages.stream({
              model: 'ERNIE-Speed-128K',
              max_tokens: 256,
              messages: [{ role: 'user', content: '北京天气' }],
            })
            .finalMessage();
          expect(msg.content[0]).toMatchObject({ type: 'text', text: BAIDU_STREAM.deltas.join('') });
          expect(msg.usage.output_tokens).toBe(BAIDU_STREAM.usage.completion);
        },
        BAIDU_STREAM.usage,
        'wenxin',
      );
    });

    it('calls functions for OpenAI tools and sends the result back as a function message', async () => {
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
      const first = await openai().chat.completions.create({
        model: 'ERNIE-4.0-8K',
        messages: [{ role: 'user', content: '北京天气怎么样' }],
        tools,
      });
      const call = first.choices[0].message.tool_calls?.[0];
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      expect(call?.type).toBe('function');
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function).toEqual(BAIDU_CALL);
      expect(baidu.calls.at(-1)?.body.functions).toEqual([
        {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ]);

      const second = await openai().chat.completions.create({
        model: 'ERNIE-4.0-8K',
        tools,
        messages: [
          { role: 'user', content: '北京天气怎么样' },
          first.choices[0].message as OpenAI.ChatCompletionAssistantMessageParam,
          { role: 'tool', tool_call_id: call.id, content: '晴 25度' },
        ],
      });
      expect(second.choices[0].message.content).toBe('根据查询：晴 25度');
      expect(baidu.calls.at(-1)?.body.messages).toEqual([
        { role: 'user', content: '北京天气怎么样' },
        { role: 'assistant', content: '', function_call: BAIDU_CALL },
        { role: 'function', name: 'get_weather', content: '晴 25度' },
      ]);
    });

    it('relays embeddings in Wenxin shape and bills its prompt tokens', async () => {
      const before = await lastLogId();
      const r = await openai().embeddings.create({
        model: 'Embedding-V1',
        input: ['hello', 'wenxin'],
        encoding_format: 'float',
      });
      expect(r.data.map((d) => d.embedding)).toEqual([
        [0.5, 0, 0.5],
        [0.6, 1, 0.5],
      ]);
      expect(r.usage.prompt_tokens).toBe(BAIDU_EMBED_TOKENS);
      expect(baidu.calls.at(-1)?.path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
      expect(baidu.calls.at(-1)?.body).toEqual({ input: ['hello', 'wenxin'] });
      const rows = await rowsAfter(before);
      expect(rows).toHaveLength(1);
      expect(rows[0].prompt_tokens).toBe(BAIDU_EMBED_TOKENS);
      expect(rows[0].quota).toBe(BAIDU_EMBED_TOKENS);
    });

    it('maps error codes in 200 answers to statuses in OpenAI and Anthropic protocols, charging nothing', async () => {
      const before = await lastLogId();
      const was = await spent();

      const rate = await failure(
        openai().chat.completions.create({
          model: 'ernie-rate',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(rate.status).toBe(429);
      expect(rate.message).toContain('qps request limit');
      expectNoSecret(rate.message);

      const quota = await failure(
        openai().chat.completions.create({
          model: 'ernie-quota',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(quota.status).toBe(429);
      expect(quota.type).toBe('insufficient_quota');

      const bad = await failure(
        openai().chat.completions.create({ model: 'ernie-bad', messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(bad.status).toBe(400);

      // A stream request answered with a JSON error instead of frames.
      const streamed = await failure(
        (async () => {
          const s = await openai().chat.completions.create({
            model: 'ernie-rate',
            stream: true,
            messages: [{ role: 'user', content: 'hi' }],
          });
          for await (const _ of s);
        })(),
      );
      expect(streamed.status).toBe(429);

      const aRate = await failure(
        anthropic().messages.create({
          model: 'ernie-rate',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(aRate.status).toBe(429);
      expect(aRate.error?.error?.type).toBe('rate_limit_error');
      expectNoSecret(aRate.error?.error?.message);

      const aBad = await failure(
        anthropic().messages.create({
          model: 'ernie-bad',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(aBad.status).toBe(400);
      expect(aBad.error?.error?.type).toBe('invalid_request_error');

      expect(await rowsAfter(before)).toHaveLength(0);
      expect(await spent()).toEqual(was);
    });

    it('re-exchanges a token Wenxin calls expired (111) and carries on', async () => {
      const ask = () =>
        openai().chat.completions.create({
          model: 'ernie-revoke',
          messages: [{ role: 'user', content: 'hi' }],
        });
      expect((await ask()).choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-revoke')).toBe(1);
      const old = baidu.tokenOf('ak-revoke') ?? '';
      expect((await ask()).choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-revoke')).toBe(1);

      baidu.expire(old);
      const callsBefore = baidu.calls.length;
      expect((await ask()).choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-revoke')).toBe(2);
      const fresh = baidu.tokenOf('ak-revoke');
      expect(fresh).not.toBe(old);
      // The call with the expired token, then the same call with the new one.
      expect(baidu.calls.slice(callsBefore).map((c) => c.token)).toEqual([old, fresh]);
      expect(baidu.calls.at(-1)?.path).toMatch(/\/chat\/completions$/);

      expect((await ask()).choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-revoke')).toBe(2);
    });

    it('shares one exchange between concurrent requests', async () => {
      const replies = await Promise.all(
        [1, 2, 3, 4].map(() =>
          openai().chat.completions.create({
            model: 'ernie-burst',
            messages: [{ role: 'user', content: 'hi' }],
          }),
        ),
      );
      for (const r of replies) expect(r.choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-burst')).toBe(1);
      expect(baidu.calls.at(-1)?.path).toMatch(/\/chat\/ernie_speed$/);
    });

    it('fails cleanly when the token endpoint fails, and does not cache the failure', async () => {
      const ask = () =>
        openai().chat.completions.create({
          model: 'ernie-flaky',
          messages: [{ role: 'user', content: 'hi' }],
        });
      const callsBefore = baidu.calls.length;
      baidu.failTokens(1);
      const err = await failure(ask());
      expect(err.status).toBe(502);
      expect(err.message).toContain('token exchange failed');
      expectNoSecret(err.message);
      expect(baidu.calls.length).toBe(callsBefore);
      expect(baidu.exchanges.get('ak-flaky')).toBeUndefined();

      expect((await ask()).choices[0].message.content).toBe(BAIDU_ANSWER.text);
      expect(baidu.exchanges.get('ak-flaky')).toBe(1);
      expect(baidu.calls.at(-1)?.path).toMatch(/\/chat\/ernie-lite-8k$/);
    });

    it('maps credentials the token endpoint refuses to the gateway’s own 503, without the key in the message', async () => {
      const err = await failure(
        openai().chat.completions.create({
          model: 'ernie-refused',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(err.status).toBe(503);
      expect(err.message).toContain('refused the credentials of the channel');
      expect(err.message).not.toContain('unknown client id');
      expectNoSecret(err.message);
      expect(err.message).not.toContain('sk-never-issued');
      expect(err.message).not.toContain('ak-unknown');
    });

    it('refuses a key that is not APIKey|SecretKey at channel save', async () => {
      for (const key of ['just-one-part', 'a|b|c', 'ak|']) {
        const r = await admin.post('/api/channel/', {
          type: 15,
          name: 'bad-wenxin',
          key,
          base_url: baidu.url,
          models: ['ERNIE-4.0-8K'],
          group: 'default',
        });
        expect(r.status).toBe(400);
        expect(r.success).toBe(false);
        expect(r.message).toContain('APIKey|SecretKey');
      }
    });

    it('passes the channel test against the mock', async () => {
      const r = await admin.get(`/api/channel/test/${channelIds.wenxin}`);
      expect(r.success, r.message).toBe(true);
      const refused = await admin.get(`/api/channel/test/${channelIds['wenxin-refused']}`);
      expect(refused.success).toBe(false);
      expect(refused.message).toContain('unknown client id');
    });
  });

  describe('Zhipu ChatGLM (v3 API)', () => {
    it('signs a JWT the provider verifies and relays a plain answer with usage', async () => {
      await charged(
        async () => {
          const r = await openai().chat.completions.create({
            model: 'chatglm_turbo',
            messages: [
              { role: 'system', content: 'You are GLM.' },
              { role: 'user', content: '你好' },
            ],
            temperature: 0,
            top_p: 1,
          });
          expect(r.choices[0].message.content).toBe(ZHIPU_ANSWER.text);
          expect(r.usage?.prompt_tokens).toBe(ZHIPU_ANSWER.usage.prompt);
          expect(r.usage?.completion_tokens).toBe(ZHIPU_ANSWER.usage.completion);
        },
        ZHIPU_ANSWER.usage,
        'glm',
      );
      const call = zhipu.calls.at(-1);
      expect(call?.path).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
      expect(call?.body).toEqual({
        prompt: [{ role: 'user', content: 'You are GLM.\n\n你好' }],
        temperature: 0.01,
        top_p: 0.99,
      });
      const auth = zhipu.tokens.at(-1) ?? '';
      expect(auth.split('.')).toHaveLength(3);
      expect(JSON.parse(Buffer.from(auth.split('.')[1], 'base64url').toString())).toMatchObject({
        api_key: 'a1b2c3d4e5f60718',
      });
    });

    it('streams through the OpenAI client, keeping spaces and line breaks of each delta', async () => {
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      await charged(
        async () => {
          const stream = await openai().chat.completions.create({
            model: 'chatglm_turbo',
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: 'say hello' }],
          });
          for await (const chunk of stream) {
            text += chunk.choices[0]?.delta?.content ?? '';
            if (chunk.usage) usage = chunk.usage;
          }
        },
        ZHIPU_STREAM.usage,
        'glm',
      );
      expect(text).toBe(ZHIPU_STREAM.deltas.join(''));
      expect(usage?.prompt_tokens).toBe(ZHIPU_STREAM.usage.prompt);
      expect(usage?.completion_tokens).toBe(ZHIPU_STREAM.usage.completion);
      expect(zhipu.calls.at(-1)?.path).toBe('/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
      expect(zhipu.calls.at(-1)?.body.incremental).toBe(true);
    });

    it('answers an Anthropic client, streamed', async () => {
      await charged(
        async () => {
          const msg = await anthropic()
            .messages.stream({
              model: 'chatglm_turbo',
              max_tokens: 128,
              messages: [{ role: 'user', content: 'say hello' }],
            })
            .finalMessage();
          expect(msg.content[0]).toMatchObject({ type: 'text', text: ZHIPU_STREAM.deltas.join('') });
          expect(msg.usage.output_tokens).toBe(ZHIPU_STREAM.usage.completion);
        },
        ZHIPU_STREAM.usage,
        'glm',
      );
    });

    it('reuses the signed token across requests', async () => {
      const seen = zhipu.tokens.length;
      for (let i = 0; i < 2; i++)
        await openai().chat.completions.create({
          model: 'chatglm_turbo',
          messages: [{ role: 'user', content: 'hi' }],
        });
      const used = zhipu.tokens.slice(seen);
      expect(used).toHaveLength(2);
      expect(new Set(used).size).toBe(1);
      expect(used[0]).toBe(zhipu.tokens[0]);
    });

    it('embeds several texts with one text_embedding call each, in order', async () => {
      const before = await lastLogId();
      const calls = zhipu.calls.length;
      const r = await openai().embeddings.create({
        model: 'text_embedding',
        input: ['one', 'three', 'four'],
        encoding_format: 'float',
      });
      expect(r.data.map((d) => d.embedding)).toEqual([
        [0.3, 0.25, -0.5],
        [0.5, 0.25, -0.5],
        [0.4, 0.25, -0.5],
      ]);
      expect(zhipu.calls.slice(calls).map((c) => c.body)).toEqual([
        { prompt: 'one' },
        { prompt: 'three' },
        { prompt: 'four' },
      ]);
      expect(r.usage.prompt_tokens).toBe(3 * ZHIPU_EMBED_TOKENS);
      const rows = await rowsAfter(before);
      expect(rows).toHaveLength(1);
      expect(rows[0].quota).toBe(3 * ZHIPU_EMBED_TOKENS);

      const one = await openai().embeddings.create({
        model: 'text_embedding',
        input: 'single',
        encoding_format: 'float',
      });
      expect(one.data).toHaveLength(1);
      expect(one.usage.prompt_tokens).toBe(ZHIPU_EMBED_TOKENS);
    });

    it('maps error codes in 200 answers to statuses in OpenAI and Anthropic protocols, charging nothing', async () => {
      const before = await lastLogId();
      const was = await spent();

      const blocked = await failure(
        openai().chat.completions.create({
          model: 'chatglm-blocked',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(blocked.status).toBe(400);
      expect(blocked.message).toContain('敏感内容');
      expectNoSecret(blocked.message);

      const arrears = await failure(
        openai().chat.completions.create({
          model: 'chatglm-arrears',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(arrears.status).toBe(429);
      expect(arrears.type).toBe('insufficient_quota');

      // sse-invoke answering a JSON error instead of events.
      const busy = await failure(
        (async () => {
          const s = await openai().chat.completions.create({
            model: 'chatglm-busy',
            stream: true,
            messages: [{ role: 'user', content: 'hi' }],
          });
          for await (const _ of s);
        })(),
      );
      expect(busy.status).toBe(429);

      const aBlocked = await failure(
        anthropic().messages.create({
          model: 'chatglm-blocked',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(aBlocked.status).toBe(400);
      expect(aBlocked.error?.error?.type).toBe('invalid_request_error');
      expectNoSecret(aBlocked.error?.error?.message);

      const aArrears = await failure(
        anthropic().messages.create({
          model: 'chatglm-arrears',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(aArrears.status).toBe(429);
      expect(aArrears.error?.error?.type).toBe('billing_error');

      expect(await rowsAfter(before)).toHaveLength(0);
      expect(await spent()).toEqual(was);
    });

    it('is refused by the provider when the JWT is signed with the wrong secret', async () => {
      const err = await failure(
        openai().chat.completions.create({
          model: 'chatglm-forged',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      expect(err.status).toBe(503);
      expect(err.message).toContain('refused the credentials of the channel');
      expect(err.message).not.toContain('not-the-secret');
    });

    it('refuses tools and images with a clear 400 (the v3 API has neither)', async () => {
      const err = await failure(
        openai().chat.completions.create({
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
      for (const key of ['no-dot-here', 'a.b.c', '.secret']) {
        const r = await admin.post('/api/channel/', {
          type: 16,
          name: 'bad-glm',
          key,
          base_url: zhipu.url,
          models: ['chatglm_turbo'],
          group: 'default',
        });
        expect(r.status).toBe(400);
        expect(r.success).toBe(false);
        expect(r.message).toContain('id.secret');
      }
    });

    it('passes the channel test against the mock', async () => {
      const r = await admin.get(`/api/channel/test/${channelIds.glm}`);
      expect(r.success, r.message).toBe(true);
      const forged = await admin.get(`/api/channel/test/${channelIds['glm-forged']}`);
      expect(forged.success).toBe(false);
    });
  });
});
