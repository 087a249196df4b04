import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startTencentMock } from './support/mock-tencent.ts';
import { failed, providerSuite } from './support/provider-harness.ts';

/**
 * Tencent Hunyuan (channel type 23) through Tencent Cloud API 3.0, against a mock that checks every call's
 * TC3-HMAC-SHA256 signature the way Tencent does (canonical request, string to sign, key derived from the
 * date, the service and tc3_request) and answers AuthFailure.SignatureFailure when it differs. Errors come
 * as 200 answers carrying Response.Error, as Tencent sends them.
 */
const APP_ID = '1250000000';
const SECRET_ID = 'AKIDhunyuanTest0001';
const SECRET_KEY = 'hunyuan-secret-key-0001';
const WRONG_SECRET = 'hunyuan-secret-key-WRONG';
const MODELS = ['hunyuan-turbo', 'hunyuan-arrears', 'hunyuan-embedding'];
const SAY_HELLO = [{ role: 'user' as const, content: 'Say hello' }];

describe('Tencent Hunyuan channel', () => {
  const t = providerSuite({
    mock: () => startTencentMock({ [SECRET_ID]: SECRET_KEY }),
    prices: {
      models: Object.fromEntries(
        [...MODELS, 'hunyuan-badsig'].map((m) => [m, { ratio: 1.5, completion: 2 }]),
      ),
      group: 1,
    },
    channels: (mock) => ({
      hunyuan: {
        type: 23,
        key: `${APP_ID}|${SECRET_ID}|${SECRET_KEY}`,
        base_url: mock.url,
        models: MODELS,
        test_model: 'hunyuan-turbo',
        setting: JSON.stringify({ region: 'ap-guangzhou' }),
      },
      'hunyuan-wrong-secret': {
        type: 23,
        key: `${APP_ID}|${SECRET_ID}|${WRONG_SECRET}`,
        base_url: mock.url,
        models: ['hunyuan-badsig'],
      },
    }),
  });
  const last = () => t.mock.seen.at(-1);
  /** The bill at ModelRatio 1.5, CompletionRatio 2, group ratio 1. */
  const bill = (prompt: number, completion: number) => ({
    prompt,
    completion,
    quota: Math.round((prompt + 2 * completion) * 1.5),
  });

  it('refuses keys that are not AppId|SecretId|SecretKey when the channel is saved', async () => {
    const keys = [`${SECRET_ID}|${SECRET_KEY}`, `app|${SECRET_ID}|${SECRET_KEY}`, `${APP_ID}||${SECRET_KEY}`];
    const body = { type: 23, name: 'bad-key', base_url: t.mock.url, models: ['hunyuan-turbo'] };
    for (const r of await t.saveEach(body, keys)) {
      expect(r.success).toBe(false);
      expect(r.message).toContain('AppId|SecretId|SecretKey');
      expect(r.message).not.toContain(SECRET_KEY);
    }
  });

  it('signs a plain chat that Tencent verifies, and bills its usage', async () => {
    const result = await t.billed(bill(10, 6), () =>
      t.openai().chat.completions.create({
        model: 'hunyuan-turbo',
        temperature: 0.3,
        top_p: 0.9,
        messages: [{ role: 'system', content: 'Be brief.' }, ...SAY_HELLO],
      }),
    );
    expect(result.choices[0].message.content).toBe('Hello from Hunyuan');
    expect(result.id).toBe('hy-plain-1');
    expect(result.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 });
    const call = last();
    expect(call?.verified).toBe(true);
    expect(call?.action).toBe('ChatCompletions');
    expect(call?.headers['x-tc-region']).toBe('ap-guangzhou');
    expect(String(call?.headers.authorization)).toContain(`Credential=${SECRET_ID}/`);
    expect(call?.body).toEqual({
      Model: 'hunyuan-turbo',
      Messages: [
        { Role: 'system', Content: 'Be brief.' },
        { Role: 'user', Content: 'Say hello' },
      ],
      Stream: false,
      Temperature: 0.3,
      TopP: 0.9,
    });
  });

  it('relays a streamed chat with its usage, and bills it', async () => {
    await t.billedStream({ model: 'hunyuan-turbo', messages: SAY_HELLO }, bill(10, 4), 'Hello from Hunyuan');
    expect(last()?.verified).toBe(true);
    expect(last()?.body.Stream).toBe(true);
  });

  it('sends tools with their schema as a JSON string and answers the tool call', async () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const r = await t.openai().chat.completions.create({
      model: 'hunyuan-turbo',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [{ role: 'user', content: 'Weather in Shenzhen?' }],
    });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    const call = {
      Id: 'call_hy_1',
      Type: 'function',
      Function: { Name: 'get_weather', Arguments: '{"city":"Shenzhen"}' },
    };
    expect(r.choices[0].message.tool_calls).toEqual([
      {
        id: call.Id,
        type: 'function',
        function: { name: 'get_weather', arguments: call.Function.Arguments },
      },
    ]);
    const body = last()?.body;
    const tool = {
      Type: 'function',
      Function: { Name: 'get_weather', Description: 'Weather', Parameters: JSON.stringify(parameters) },
    };
    expect(body.Tools).toEqual([tool]);
    expect(body.ToolChoice).toBe('custom');
    expect(body.CustomTool).toEqual(tool);

    // The tool result goes back as a tool message with its call id.
    await t.openai().chat.completions.create({
      model: 'hunyuan-turbo',
      messages: [
        { role: 'user', content: 'Weather in Shenzhen?' },
        { role: 'assistant', content: null, tool_calls: r.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: 'call_hy_1', content: 'Sunny, 28°C' },
      ],
    });
    expect(last()?.body.Messages.slice(1)).toEqual([
      { Role: 'assistant', Content: '', ToolCalls: [call] },
      { Role: 'tool', Content: 'Sunny, 28°C', ToolCallId: 'call_hy_1' },
    ]);
  });

  it('answers an Anthropic client on /v1/messages, plain and streamed', async () => {
    const ask = { model: 'hunyuan-turbo', max_tokens: 100, messages: SAY_HELLO };
    const msg = await t.anthropic().messages.create(ask);
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from Hunyuan' }]);
    expect(msg.usage).toMatchObject({ input_tokens: 10, output_tokens: 6 });
    const final = await t.anthropic().messages.stream(ask).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Hunyuan' }]);
    expect(final.usage.output_tokens).toBe(4);
  });

  it('relays embeddings through GetEmbedding, signed, billed on its token count', async () => {
    const result = await t.billed(bill(6, 0), () =>
      t
        .openai()
        .embeddings.create({ model: 'hunyuan-embedding', input: ['one', 'three'], encoding_format: 'float' }),
    );
    expect(result.data.map((d) => d.embedding)).toEqual([
      [3, 0.25],
      [5, 0.25],
    ]);
    expect(result.usage.prompt_tokens).toBe(6);
    expect(last()).toMatchObject({
      action: 'GetEmbedding',
      verified: true,
      body: { InputList: ['one', 'three'] },
    });
  });

  it("maps Response.Error into OpenAI's and Anthropic's protocols, plain and streamed", async () => {
    const arrears = { type: 'insufficient_quota', code: 'ResourceUnavailable.InArrears' };
    await t.unbilled(() =>
      t.expectErrors([
        {
          via: 'chat',
          model: 'hunyuan-arrears',
          status: 429,
          check: (_, e) => {
            expect(e.error).toMatchObject(arrears);
            expect(e.error.message).toContain('arrears');
          },
        },
        // A refused stream is answered with one JSON body, not SSE.
        {
          via: 'messages-stream',
          model: 'hunyuan-arrears',
          status: 429,
          check: (_, e) => expect(e.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } }),
        },
      ]),
    );
  });

  it('maps a signature Tencent refuses to the gateway’s own 503 that shows no secret', async () => {
    const err = await failed(t.ask('hunyuan-badsig'));
    expect(last()?.verified).toBe(false);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(503);
    expect(err.error.code).toBe('upstream_auth_failed');
    const text = JSON.stringify(err.error);
    for (const secret of [WRONG_SECRET, SECRET_KEY, `${APP_ID}|${SECRET_ID}|${WRONG_SECRET}`])
      expect(text).not.toContain(secret);
  });

  it('passes the channel test with a signed call', async () => {
    const before = t.mock.seen.length;
    const test = await t.admin.get(`/api/channel/test/${t.ids.hunyuan}`);
    expect(test.success, test.message).toBe(true);
    expect(t.mock.seen.slice(before).map((s) => [s.action, s.verified])).toEqual([['ChatCompletions', true]]);
  });
});
