import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  BAIDU_ANSWER,
  BAIDU_CALL,
  BAIDU_EMBED_TOKENS,
  BAIDU_STREAM,
  startBaiduMock,
} from './support/mock-baidu.ts';
import { billOneTwo, CITY_WEATHER, failed, NIHAO, providerSuite, WHO } from './support/provider-harness.ts';

/**
 * Baidu Wenxin (type 15) channels, made by an admin through the console, used with the official OpenAI and
 * Anthropic clients against a mock that checks what Baidu checks: the token exchange of API Key and Secret Key,
 * and the access token on every call. Each answer's text and usage are compared with what the mock sent, and
 * the charge with the usage priced by hand (prompt + 2 x completion).
 */
const MAIN_MODELS = [
  'ERNIE-4.0-8K',
  'ERNIE-Speed-128K',
  'Embedding-V1',
  'ernie-rate',
  'ernie-quota',
  'ernie-bad',
];
const BAIDU_APPS: Record<string, string> = {
  'ak-main': 'sk-main-7f3a9c',
  'ak-revoke': 'sk-revoke-51d2',
  'ak-flaky': 'sk-flaky-88e0',
  'ak-burst': 'sk-burst-2c44',
};

describe('Baidu Wenxin channels', () => {
  const t = providerSuite({
    mock: () => startBaiduMock(BAIDU_APPS),
    prices: [...MAIN_MODELS, 'ernie-revoke', 'ernie-flaky', 'ernie-refused', 'ernie-burst'],
    channels: (baidu) => {
      const wenxin = (key: string, model: string, upstream?: string) => ({
        type: 15,
        key,
        base_url: baidu.url,
        models: [model],
        ...(upstream ? { model_mapping: { [model]: upstream } } : {}),
      });
      return {
        wenxin: {
          ...wenxin('ak-main|sk-main-7f3a9c', 'ERNIE-4.0-8K'),
          models: MAIN_MODELS,
        },
        'wenxin-revoke': wenxin('ak-revoke|sk-revoke-51d2', 'ernie-revoke', 'ERNIE-3.5-8K'),
        'wenxin-flaky': wenxin('ak-flaky|sk-flaky-88e0', 'ernie-flaky', 'ERNIE-Lite-8K'),
        'wenxin-refused': wenxin('ak-unknown|sk-never-issued', 'ernie-refused'),
        'wenxin-burst': wenxin('ak-burst|sk-burst-2c44', 'ernie-burst', 'ERNIE-Speed-8K'),
      };
    },
  });
  const bill = (usage: { prompt: number; completion: number }) => billOneTwo(usage, t.ids.wenxin);

  /** A failure's text never carries a key, a secret or an access token. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    for (const [ak, sk] of Object.entries(BAIDU_APPS)) {
      expect(text).not.toContain(ak);
      expect(text).not.toContain(sk);
    }
    expect(text).not.toContain('mock-token');
  }

  it('exchanges the key for an access token once and calls the model endpoint with it', async () => {
    const ask = { model: 'ERNIE-4.0-8K', messages: NIHAO, temperature: 0, max_tokens: 100, user: 'user-42' };
    const r = await t.billedChat(ask, bill(BAIDU_ANSWER.usage), BAIDU_ANSWER.text);
    expect(r.choices[0].finish_reason).toBe('stop');
    const call = t.mock.calls.at(-1);
    expect(call?.path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro');
    expect(call?.token).toBe(t.mock.tokenOf('ak-main'));
    expect(call?.body).toMatchObject({
      system: 'You are helpful.',
      messages: [{ role: 'user', content: '你好' }],
      temperature: 0.01,
      max_output_tokens: 100,
    });
    // A converted call sends no end-user id by default (global.converted_user_id, relay-end-user.test.ts).
    expect(call?.body.user_id).toBeUndefined();
    expect(call?.body.model).toBeUndefined();
    expect(t.mock.exchanges.get('ak-main')).toBe(1);
  });

  it('streams through the OpenAI client with usage, reusing the cached token', async () => {
    const ask = { model: 'ERNIE-Speed-128K', messages: [{ role: 'user' as const, content: '北京天气' }] };
    const s = await t.billedStream(ask, bill(BAIDU_STREAM.usage), BAIDU_STREAM.deltas.join(''));
    expect(s.finish).toBe('stop');
    expect(t.mock.calls.at(-1)?.path).toMatch(/\/chat\/ernie-speed-128k$/);
    expect(t.mock.calls.at(-1)?.body.stream).toBe(true);
    expect(t.mock.exchanges.get('ak-main')).toBe(1);
  });

  it('answers an Anthropic client, plain and streamed', async () => {
    const ask = { model: 'ERNIE-4.0-8K', max_tokens: 256, system: 'Answer briefly.', messages: WHO };
    const msg = await t.billedMessage(ask, bill(BAIDU_ANSWER.usage), BAIDU_ANSWER.text);
    expect(msg.stop_reason).toBe('end_turn');
    expect(t.mock.calls.at(-1)?.body.system).toBe('Answer briefly.');
    const weather = {
      model: 'ERNIE-Speed-128K',
      max_tokens: 256,
      messages: [{ role: 'user' as const, content: '北京天气' }],
    };
    await t.billedMessageStream(weather, bill(BAIDU_STREAM.usage), BAIDU_STREAM.deltas.join(''));
  });

  it('calls functions for OpenAI tools and sends the result back as a function message', async () => {
    const tools = [CITY_WEATHER];
    const first = await t.openai().chat.completions.create({
      model: 'ERNIE-4.0-8K',
      messages: [{ role: 'user', content: '北京天气怎么样' }],
      tools,
    });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function).toEqual(BAIDU_CALL);
    expect(t.mock.calls.at(-1)?.body.functions).toEqual([
      {
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);

    const second = await t.openai().chat.completions.create({
      model: 'ERNIE-4.0-8K',
      tools,
      messages: [
        { role: 'user', content: '北京天气怎么样' },
        first.choices[0].message as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: call.id, content: '晴 25度' },
      ],
    });
    expect(second.choices[0].message.content).toBe('根据查询：晴 25度');
    expect(t.mock.calls.at(-1)?.body.messages).toEqual([
      { role: 'user', content: '北京天气怎么样' },
      { role: 'assistant', content: '', function_call: BAIDU_CALL },
      { role: 'function', name: 'get_weather', content: '晴 25度' },
    ]);
  });

  it('relays embeddings in Wenxin shape and bills its prompt tokens', async () => {
    const embed = { prompt: BAIDU_EMBED_TOKENS, completion: 0, quota: BAIDU_EMBED_TOKENS };
    const r = await t.billed(embed, () =>
      t
        .openai()
        .embeddings.create({ model: 'Embedding-V1', input: ['hello', 'wenxin'], encoding_format: 'float' }),
    );
    expect(r.data.map((d) => d.embedding)).toEqual([
      [0.5, 0, 0.5],
      [0.6, 1, 0.5],
    ]);
    expect(r.usage.prompt_tokens).toBe(BAIDU_EMBED_TOKENS);
    expect(t.mock.calls.at(-1)?.path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
    expect(t.mock.calls.at(-1)?.body).toEqual({ input: ['hello', 'wenxin'] });
  });

  it('maps error codes in 200 answers to statuses in OpenAI and Anthropic protocols, charging nothing', async () => {
    const check = expectNoSecret;
    await t.unbilled(() =>
      t.expectErrors([
        { via: 'chat', model: 'ernie-rate', status: 429, says: 'qps request limit', check },
        { via: 'chat', model: 'ernie-quota', status: 429, type: 'insufficient_quota' },
        { via: 'chat', model: 'ernie-bad', status: 400 },
        // A stream request answered with a JSON error instead of frames.
        { via: 'chat-stream', model: 'ernie-rate', status: 429 },
        {
          via: 'messages',
          model: 'ernie-rate',
          status: 429,
          type: 'rate_limit_error',
          check,
        },
        { via: 'messages', model: 'ernie-bad', status: 400, type: 'invalid_request_error' },
      ]),
    );
  });

  it('re-exchanges a token Wenxin calls expired (111) and carries on', async () => {
    const answered = async () => (await t.ask('ernie-revoke')).choices[0].message.content;
    expect(await answered()).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-revoke')).toBe(1);
    const old = t.mock.tokenOf('ak-revoke') ?? '';
    expect(await answered()).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-revoke')).toBe(1);

    t.mock.expire(old);
    const callsBefore = t.mock.calls.length;
    expect(await answered()).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-revoke')).toBe(2);
    const fresh = t.mock.tokenOf('ak-revoke');
    expect(fresh).not.toBe(old);
    // The call with the expired token, then the same call with the new one.
    expect(t.mock.calls.slice(callsBefore).map((c) => c.token)).toEqual([old, fresh]);
    expect(t.mock.calls.at(-1)?.path).toMatch(/\/chat\/completions$/);

    expect(await answered()).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-revoke')).toBe(2);
  });

  it('shares one exchange between concurrent requests', async () => {
    const replies = await Promise.all([1, 2, 3, 4].map(() => t.ask('ernie-burst')));
    for (const r of replies) expect(r.choices[0].message.content).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-burst')).toBe(1);
    expect(t.mock.calls.at(-1)?.path).toMatch(/\/chat\/ernie_speed$/);
  });

  it('fails cleanly when the token endpoint fails, and does not cache the failure', async () => {
    const callsBefore = t.mock.calls.length;
    t.mock.failTokens(1);
    const err = await failed(t.ask('ernie-flaky'));
    expect(err.status).toBe(502);
    expect(err.message).toContain('token exchange failed');
    expectNoSecret(err.message);
    expect(t.mock.calls.length).toBe(callsBefore);
    expect(t.mock.exchanges.get('ak-flaky')).toBeUndefined();

    expect((await t.ask('ernie-flaky')).choices[0].message.content).toBe(BAIDU_ANSWER.text);
    expect(t.mock.exchanges.get('ak-flaky')).toBe(1);
    expect(t.mock.calls.at(-1)?.path).toMatch(/\/chat\/ernie-lite-8k$/);
  });

  it('maps credentials the token endpoint refuses to the gateway’s own 503, without the key in the message', async () => {
    const err = await failed(t.ask('ernie-refused'));
    expect(err.status).toBe(503);
    expect(err.message).toContain('refused the credentials of the channel');
    expect(err.message).not.toContain('unknown client id');
    expectNoSecret(err.message);
    expect(err.message).not.toContain('sk-never-issued');
    expect(err.message).not.toContain('ak-unknown');
  });

  it('refuses a key that is not APIKey|SecretKey at channel save', async () => {
    const body = { type: 15, name: 'bad-wenxin', base_url: t.mock.url, models: ['ERNIE-4.0-8K'] };
    await t.expectRefusedKeys(body, ['just-one-part', 'a|b|c', 'ak|'], 'APIKey|SecretKey');
  });

  it('passes the channel test against the mock', async () => {
    const r = await t.admin.get(`/api/channel/test/${t.ids.wenxin}`);
    expect(r.success, r.message).toBe(true);
    const refused = await t.admin.get(`/api/channel/test/${t.ids['wenxin-refused']}`);
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('unknown client id');
  });
});
