import { describe, expect, it } from 'vitest';
import { setResolverForTests } from '../src/infra/ssrf.ts';
import { openExchange } from '../src/relay/providers/xunfei/socket.ts';
import { SPARK_ANSWER, SPARK_CALL, startSparkMock } from './support/mock-spark.ts';
import {
  billOneTwo,
  CITY_WEATHER,
  failed,
  NIHAO,
  providerSuite,
  streamChat,
  WHO,
} from './support/provider-harness.ts';

/**
 * iFlytek Spark (type 18) channels, made by an admin through the console and used with the official OpenAI and
 * Anthropic clients against a mock that checks Spark's HMAC-signed WebSocket URL: it recomputes the signature
 * and refuses the upgrade otherwise. Each charge is compared with the usage priced by hand (prompt + 2 x
 * completion).
 */
const SPARK_KEY = '5f2e8a1c|NmQ3ZTkxYjJhNGM1ZDZlN2Y4YTliMGMx|a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const SPARK_FORGED = '5f2e8a1c|bm90LXRoZS1hcHAtc2VjcmV0LWF0LWFsbA|a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const ANSWER = SPARK_ANSWER.deltas.join('');

describe('iFlytek Spark channels', () => {
  const t = providerSuite({
    mock: () =>
      startSparkMock({
        a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6: {
          appId: '5f2e8a1c',
          apiSecret: 'NmQ3ZTkxYjJhNGM1ZDZlN2Y4YTliMGMx',
        },
      }),
    prices: ['SparkDesk-v3.5', '4.0Ultra', 'spark-max-32k', 'spark-house', 'spark-forged'],
    channels: (spark) => ({
      spark: {
        type: 18,
        key: SPARK_KEY,
        base_url: spark.url,
        models: ['SparkDesk-v3.5', '4.0Ultra', 'spark-max-32k', 'spark-house'],
        setting: JSON.stringify({ api_version: 'v3.1' }),
      },
      'spark-forged': {
        type: 18,
        key: SPARK_FORGED,
        base_url: spark.url,
        models: ['spark-forged'],
        model_mapping: { 'spark-forged': 'SparkDesk-v3.5' },
      },
    }),
  });
  const bill = () => billOneTwo(SPARK_ANSWER.usage, t.ids.spark);

  /** A failure's text never carries a key, a secret or a signature. */
  function expectNoSecret(text: string | undefined) {
    expect(text).toMatch(/request id/);
    for (const part of [...SPARK_KEY.split('|').slice(1), ...SPARK_FORGED.split('|')])
      expect(text).not.toContain(part);
    expect(text).not.toContain('authorization=');
  }

  it('signs the WebSocket URL the provider verifies and relays a plain answer with usage', async () => {
    const callsBefore = t.mock.calls.length;
    const ask = {
      model: 'SparkDesk-v3.5',
      messages: NIHAO,
      temperature: 0.5,
      max_tokens: 200,
      user: 'user-42',
    };
    const r = await t.billedChat(ask, bill(), ANSWER);
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(t.mock.calls.length).toBe(callsBefore + 1);
    const call = t.mock.calls.at(-1);
    expect(call?.path).toBe('/v3.5/chat');
    expect(call?.appId).toBe('5f2e8a1c');
    expect(call?.domain).toBe('generalv3.5');
    expect(call?.body).toEqual({
      // A converted call sends no end-user id by default (global.converted_user_id).
      header: { app_id: '5f2e8a1c' },
      parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 200 } },
      payload: {
        message: {
          text: NIHAO,
        },
      },
    });
  });

  it('streams frames as they come through the OpenAI client, with usage', async () => {
    const ask = { model: 'SparkDesk-v3.5', messages: [{ role: 'user' as const, content: '介绍一下你自己' }] };
    const s = await t.billedStream(ask, bill(), ANSWER);
    expect(s.deltas).toBe(SPARK_ANSWER.deltas.length);
    expect(s.finish).toBe('stop');
  });

  it('picks the version from the model name, else from the api_version setting', async () => {
    const seen: Array<[string, string]> = [];
    for (const model of ['4.0Ultra', 'spark-max-32k', 'spark-house']) {
      const r = await t.ask(model);
      expect(r.choices[0].message.content).toBe(ANSWER);
      const call = t.mock.calls.at(-1);
      seen.push([call?.path ?? '', call?.domain ?? '']);
    }
    expect(seen).toEqual([
      ['/v4.0/chat', '4.0Ultra'],
      ['/chat/max-32k', 'max-32k'],
      ['/v3.1/chat', 'generalv3'],
    ]);
  });

  it('answers an Anthropic client, plain and streamed', async () => {
    const ask = { model: 'SparkDesk-v3.5', max_tokens: 256, messages: WHO };
    const msg = await t.billedMessage({ ...ask, system: 'Answer briefly.' }, bill(), ANSWER);
    expect(msg.stop_reason).toBe('end_turn');
    expect(t.mock.calls.at(-1)?.body.payload.message.text[0]).toEqual({
      role: 'system',
      content: 'Answer briefly.',
    });
    await t.billedMessageStream(ask, bill(), ANSWER);
  });

  it('sends OpenAI tools as functions and gives the function call back as a tool call', async () => {
    const ask = { model: 'SparkDesk-v3.5', messages: [{ role: 'user' as const, content: '合肥天气怎么样' }] };
    const r = await t.openai().chat.completions.create({ ...ask, tools: [CITY_WEATHER] });
    const call = r.choices[0].message.tool_calls?.[0];
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function).toEqual(SPARK_CALL);
    expect(t.mock.calls.at(-1)?.body.payload.functions).toEqual({
      text: [
        {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    });

    const streamed = await streamChat(t.openai(), { ...ask, tools: [CITY_WEATHER] });
    expect(streamed.calls[0]?.name).toBe(SPARK_CALL.name);
    expect(streamed.calls[0]?.args).toBe(SPARK_CALL.arguments);
  });

  it('maps error frames to statuses in the OpenAI and Anthropic protocols, charging nothing', async () => {
    const model = 'SparkDesk-v3.5';
    const [filter, limit] = ['trigger:filter', 'trigger:limit'];
    const check = expectNoSecret;
    await t.unbilled(() =>
      t.expectErrors([
        {
          via: 'chat',
          model,
          content: filter,
          status: 400,
          says: 'input content audit failed',
          check,
        },
        { via: 'chat', model, content: limit, status: 429 },
        { via: 'chat-stream', model, content: limit, status: 429 },
        {
          via: 'messages',
          model,
          content: filter,
          status: 400,
          type: 'invalid_request_error',
          check,
        },
        { via: 'messages', model, content: limit, status: 429, type: 'rate_limit_error' },
      ]),
    );
  });

  it("is refused on the upgrade for a wrong APISecret: admins read why, callers get the gateway's 503, no key shown", async () => {
    const refusals = t.mock.refusals.length;
    const r = await t.admin.get(`/api/channel/test/${t.ids['spark-forged']}`);
    expect(r.success).toBe(false);
    expect(r.message).toContain('HMAC signature cannot be verified');
    for (const part of SPARK_FORGED.split('|').slice(1)) expect(r.message).not.toContain(part);
    expect(t.mock.refusals.slice(refusals)).toEqual(['HMAC signature cannot be verified']);

    const calls = t.mock.calls.length;
    const err = await failed(t.ask('spark-forged'));
    expect(err.status).toBe(503);
    expect(err.message).toContain('refused the credentials of the channel');
    expect(err.message).not.toContain('HMAC signature cannot be verified');
    expectNoSecret(err.message);
    expect(t.mock.calls.length).toBe(calls);
  });

  it('closes the socket when the client leaves a stream, and logs what was sent', async () => {
    const abandoned = t.mock.abandoned;
    const before = await t.lastLogId();
    const controller = new AbortController();
    const stream = await t
      .openai()
      .chat.completions.create(
        { model: 'SparkDesk-v3.5', stream: true, messages: [{ role: 'user', content: 'trigger:slow' }] },
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
    await expect.poll(() => t.mock.abandoned).toBe(abandoned + 1);
    // The cut stream is settled after the socket closes: its log row says the client left.
    await expect.poll(async () => (await t.logsAfter(before)).length).toBe(1);
    const [row] = await t.logsAfter(before);
    expect(row.content).toMatch(/client disconnected/);
  });

  it('refuses keys that are not APPID|APISecret|APIKey, and bad settings, at channel save', async () => {
    const body = { type: 18, name: 'bad-spark', base_url: t.mock.url, models: ['SparkDesk-v3.5'] };
    const keys = ['only|two', 'app id|secret|key', '5f2e8a1c|secret|', 'a|b|c|d'];
    await t.expectRefusedKeys(body, keys, 'APPID|APISecret|APIKey');
    const [r] = await t.saveEach(
      { ...body, name: 'bad-spark-version', setting: JSON.stringify({ api_version: 'latest' }) },
      [SPARK_KEY],
    );
    expect(r.status).toBe(400);
    expect(r.message).toContain('api_version');
  });

  it('connects through the SSRF guard: link-local names and addresses are refused', async () => {
    const req = { signal: { aborted: false, on() {} }, options: t.server.ctx.options };
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
    const r = await t.admin.get(`/api/channel/test/${t.ids.spark}`);
    expect(r.success, r.message).toBe(true);
    expect(t.mock.calls.at(-1)?.body.parameter.chat.max_tokens).toBe(10);
  });
});
