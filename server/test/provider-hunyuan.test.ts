import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { serveMock } from './support/mock-server.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

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
const SECRETS: Record<string, string> = { [SECRET_ID]: SECRET_KEY };

interface Seen {
  action: string;
  headers: IncomingMessage['headers'];
  body: any;
  verified: boolean;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const mac = (key: Buffer | string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest();

/** Tencent's check of an Authorization header: the error code it answers, or null when the signature holds. */
function verifyTc3(req: IncomingMessage, raw: string): string | null {
  const m =
    /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m) return 'AuthFailure.InvalidAuthorization';
  const [, secretId, date, service, signedHeaders, signature] = m;
  const secretKey = SECRETS[secretId];
  if (!secretKey) return 'AuthFailure.SecretIdNotFound';
  const timestamp = Number(req.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300)
    return 'AuthFailure.SignatureExpire';
  if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date || service !== 'hunyuan')
    return 'AuthFailure.SignatureFailure';
  const names = signedHeaders.split(';');
  if (!names.includes('content-type') || !names.includes('host')) return 'AuthFailure.SignatureFailure';
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .toLowerCase()}\n`,
    )
    .join('');
  const canonicalRequest = `${req.method}\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${hex(raw)}`;
  const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${hex(canonicalRequest)}`;
  const kDate = mac(`TC3${secretKey}`, date);
  const kService = mac(kDate, service);
  const kSigning = mac(kService, 'tc3_request');
  const expected = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  return expected === signature ? null : 'AuthFailure.SignatureFailure';
}

function startTencent() {
  const seen: Seen[] = [];
  const answer = (res: ServerResponse, response: Record<string, unknown>) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ Response: { ...response, RequestId: 'req-tc-1' } }));
  };
  const fail = (res: ServerResponse, code: string, message: string) =>
    answer(res, { Error: { Code: code, Message: message } });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const action = String(req.headers['x-tc-action'] ?? '');
    const refused = verifyTc3(req, raw);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    seen.push({ action, headers: req.headers, body, verified: refused === null });
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://mock').pathname !== '/')
      return fail(res, 'UnsupportedOperation', 'only POST / is served');
    if (refused)
      return fail(
        res,
        refused,
        'The provided credentials could not be validated. Please check your signature is correct.',
      );
    if (req.headers['x-tc-version'] !== '2023-09-01')
      return fail(res, 'InvalidParameter', 'unsupported X-TC-Version');
    if (action === 'GetEmbedding') {
      const list: string[] = body?.InputList ?? [];
      if (!list.length) return fail(res, 'MissingParameter', 'InputList is required');
      return answer(res, {
        Data: list.map((t) => ({ Embedding: [t.length, 0.25], Index: 0, Object: 'embedding' })),
        Usage: { PromptTokens: 6, TotalTokens: 6 },
      });
    }
    if (action !== 'ChatCompletions') return fail(res, 'InvalidAction', `unknown action ${action}`);
    if (!Array.isArray(body?.Messages) || typeof body?.Model !== 'string')
      return fail(res, 'MissingParameter', 'Model and Messages are required');
    if (body.Model === 'hunyuan-arrears')
      return fail(res, 'ResourceUnavailable.InArrears', 'Your account is in arrears; please top up.');
    const tools = Array.isArray(body.Tools) && body.Tools.length > 0;
    if (tools && typeof body.Tools[0].Function?.Parameters !== 'string')
      return fail(res, 'InvalidParameterValue', 'Tools.Function.Parameters must be a JSON string');
    if (!body.Stream) {
      const message = tools
        ? {
            Role: 'assistant',
            Content: '',
            ToolCalls: [
              {
                Id: 'call_hy_1',
                Type: 'function',
                Function: { Name: 'get_weather', Arguments: '{"city":"Shenzhen"}' },
                Index: 0,
              },
            ],
          }
        : { Role: 'assistant', Content: 'Hello from Hunyuan' };
      return answer(res, {
        Id: 'hy-plain-1',
        Created: 1_735_689_600,
        Note: '以上内容为AI生成，不代表开发者立场',
        Choices: [{ Index: 0, Message: message, FinishReason: tools ? 'tool_calls' : 'stop' }],
        Usage: { PromptTokens: 10, CompletionTokens: 6, TotalTokens: 16 },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const parts = ['Hello', ' from', ' Hun', 'yuan'];
    parts.forEach((text, i) => {
      const last = i === parts.length - 1;
      const chunk = {
        Note: '以上内容为AI生成，不代表开发者立场',
        Choices: [{ Delta: { Role: 'assistant', Content: text }, FinishReason: last ? 'stop' : '' }],
        Created: 1_735_689_600,
        Id: 'hy-stream-1',
        Usage: { PromptTokens: 10, CompletionTokens: i + 1, TotalTokens: 11 + i },
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    res.end();
  };
  return { seen, handle };
}

describe('Tencent Hunyuan channel', () => {
  let server: TestServer;
  let mock: { url: string; close: () => Promise<void> };
  let tc: ReturnType<typeof startTencent>;
  let admin: ConsoleClient;
  let userId: number;
  let token: { id: number; key: string };
  let channelId: number;
  const MODELS = ['hunyuan-turbo', 'hunyuan-arrears', 'hunyuan-embedding'];

  const openai = () => new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: `sk-${token.key}`, baseURL: server.url, maxRetries: 0 });
  const last = () => tc.seen.at(-1);

  async function usedQuota() {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select('used_quota')
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    return { user: Number(u.used_quota), token: Number(t.used_quota) };
  }

  /** The usage rows a call writes, and how much the user's and the token's used quota grew. */
  async function charged<T>(run: () => Promise<T>) {
    await flushLedger(server.ctx);
    const row = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    const before = Number(row?.id ?? 0);
    const used = await usedQuota();
    const result = await run();
    const now = await usedQuota();
    const rows = await server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('id', '>', before)
      .where('type', '=', 2)
      .execute();
    return { result, rows, userDelta: now.user - used.user, tokenDelta: now.token - used.token };
  }

  /** ModelRatio 1.5, CompletionRatio 2, group ratio 1. */
  const textQuota = (prompt: number, completion: number) => Math.round((prompt + 2 * completion) * 1.5);

  beforeAll(async () => {
    tc = startTencent();
    mock = await serveMock(tc.handle);
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const ratios = (n: number) =>
      JSON.stringify(Object.fromEntries([...MODELS, 'hunyuan-badsig'].map((m) => [m, n])));
    await server.ctx.options.set('ModelRatio', ratios(1.5));
    await server.ctx.options.set('CompletionRatio', ratios(2));
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await loginAs(server, { username: 'hunyuan-user', quota: 50_000_000 });
    userId = user.userId;
    const ch = await admin.post('/api/channel/', {
      type: 23,
      name: 'hunyuan',
      key: `${APP_ID}|${SECRET_ID}|${SECRET_KEY}`,
      base_url: mock.url,
      models: MODELS,
      group: 'default',
      auto_ban: 0,
      test_model: 'hunyuan-turbo',
      setting: JSON.stringify({ region: 'ap-guangzhou' }),
    });
    expect(ch.success, ch.message).toBe(true);
    channelId = ch.data.ids[0];
    const wrong = await admin.post('/api/channel/', {
      type: 23,
      name: 'hunyuan-wrong-secret',
      key: `${APP_ID}|${SECRET_ID}|${WRONG_SECRET}`,
      base_url: mock.url,
      models: ['hunyuan-badsig'],
      group: 'default',
      auto_ban: 0,
    });
    expect(wrong.success, wrong.message).toBe(true);
    const tk = await user.post('/api/token/', { name: 'app', remain_quota: 5_000_000 });
    expect(tk.success, tk.message).toBe(true);
    token = tk.data[0];
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('refuses keys that are not AppId|SecretId|SecretKey when the channel is saved', async () => {
    for (const key of [
      `${SECRET_ID}|${SECRET_KEY}`,
      `app|${SECRET_ID}|${SECRET_KEY}`,
      `${APP_ID}||${SECRET_KEY}`,
    ]) {
      const r = await admin.post('/api/channel/', {
        type: 23,
        name: 'bad-key',
        key,
        base_url: mock.url,
        models: ['hunyuan-turbo'],
      });
      expect(r.success).toBe(false);
      expect(r.message).toContain('AppId|SecretId|SecretKey');
      expect(r.message).not.toContain(SECRET_KEY);
    }
  });

  it('signs a plain chat that Tencent verifies, and bills its usage', async () => {
    const { result, rows, userDelta, tokenDelta } = await charged(() =>
      openai().chat.completions.create({
        model: 'hunyuan-turbo',
        temperature: 0.3,
        top_p: 0.9,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
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
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ prompt_tokens: 10, completion_tokens: 6, quota: textQuota(10, 6) });
    expect(userDelta).toBe(textQuota(10, 6));
    expect(tokenDelta).toBe(textQuota(10, 6));
  });

  it('relays a streamed chat with its usage, and bills it', async () => {
    const { result, rows, userDelta } = await charged(async () => {
      const stream = await openai().chat.completions.create({
        model: 'hunyuan-turbo',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage };
    });
    expect(result.text).toBe('Hello from Hunyuan');
    expect(result.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4 });
    expect(last()?.verified).toBe(true);
    expect(last()?.body.Stream).toBe(true);
    expect(rows[0]).toMatchObject({ prompt_tokens: 10, completion_tokens: 4, quota: textQuota(10, 4) });
    expect(userDelta).toBe(textQuota(10, 4));
  });

  it('sends tools with their schema as a JSON string and answers the tool call', async () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const r = await openai().chat.completions.create({
      model: 'hunyuan-turbo',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [{ role: 'user', content: 'Weather in Shenzhen?' }],
    });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.tool_calls).toEqual([
      {
        id: 'call_hy_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Shenzhen"}' },
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
    await openai().chat.completions.create({
      model: 'hunyuan-turbo',
      messages: [
        { role: 'user', content: 'Weather in Shenzhen?' },
        { role: 'assistant', content: null, tool_calls: r.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: 'call_hy_1', content: 'Sunny, 28°C' },
      ],
    });
    expect(last()?.body.Messages.slice(1)).toEqual([
      {
        Role: 'assistant',
        Content: '',
        ToolCalls: [
          {
            Id: 'call_hy_1',
            Type: 'function',
            Function: { Name: 'get_weather', Arguments: '{"city":"Shenzhen"}' },
          },
        ],
      },
      { Role: 'tool', Content: 'Sunny, 28°C', ToolCallId: 'call_hy_1' },
    ]);
  });

  it('answers an Anthropic client on /v1/messages, plain and streamed', async () => {
    const msg = await anthropic().messages.create({
      model: 'hunyuan-turbo',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from Hunyuan' }]);
    expect(msg.usage).toMatchObject({ input_tokens: 10, output_tokens: 6 });
    const final = await anthropic()
      .messages.stream({
        model: 'hunyuan-turbo',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Hunyuan' }]);
    expect(final.usage.output_tokens).toBe(4);
  });

  it('relays embeddings through GetEmbedding, signed, billed on its token count', async () => {
    const { result, rows, userDelta } = await charged(() =>
      openai().embeddings.create({
        model: 'hunyuan-embedding',
        input: ['one', 'three'],
        encoding_format: 'float',
      }),
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
    expect(rows[0]).toMatchObject({ prompt_tokens: 6, quota: textQuota(6, 0) });
    expect(userDelta).toBe(textQuota(6, 0));
  });

  it("maps Response.Error into OpenAI's and Anthropic's protocols, plain and streamed", async () => {
    const used = await usedQuota();
    const err = await openai()
      .chat.completions.create({ model: 'hunyuan-arrears', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ type: 'insufficient_quota', code: 'ResourceUnavailable.InArrears' });
    expect(err.error.message).toContain('arrears');

    // A refused stream is answered with one JSON body, not SSE.
    const aerr = await anthropic()
      .messages.create({
        model: 'hunyuan-arrears',
        max_tokens: 10,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e) => e);
    expect(aerr).toBeInstanceOf(Anthropic.APIError);
    expect(aerr.status).toBe(429);
    expect(aerr.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect((await usedQuota()).user).toBe(used.user);
  });

  it('maps a signature Tencent refuses to the gateway’s own 503 that shows no secret', async () => {
    const err = await openai()
      .chat.completions.create({ model: 'hunyuan-badsig', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(last()?.verified).toBe(false);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(503);
    expect(err.error.code).toBe('upstream_auth_failed');
    const text = JSON.stringify(err.error);
    for (const secret of [WRONG_SECRET, SECRET_KEY, `${APP_ID}|${SECRET_ID}|${WRONG_SECRET}`])
      expect(text).not.toContain(secret);
  });

  it('passes the channel test with a signed call', async () => {
    const before = tc.seen.length;
    const test = await admin.get(`/api/channel/test/${channelId}`);
    expect(test.success, test.message).toBe(true);
    expect(tc.seen.slice(before).map((s) => [s.action, s.verified])).toEqual([['ChatCompletions', true]]);
  });
});
