import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicSse } from '../src/relay/providers/bedrock/event-stream.ts';
import { bedrockModelId, crossRegionPrefix } from '../src/relay/providers/bedrock/models.ts';
import { claudeCodeAsk, withModelBeta } from './support/cloud-betas.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { anthropicAnswer, expectedQuota } from './support/fixture-answers.ts';
import { formatClient } from './support/format-clients.ts';
import {
  type BedrockMock,
  BREAKING_MODEL,
  MOCK_ACCESS_KEY,
  MOCK_REGION,
  MOCK_SECRET,
  PROFILE_ARN,
  startBedrockMock,
  THROTTLED_MODEL,
} from './support/mock-bedrock.ts';
import { flushLedger, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * AWS Claude (channel type 33) against a Bedrock mock that verifies every request's SigV4 signature with the
 * account's secret: channels made by an admin in the console (so the key shape is checked), then the official
 * OpenAI client (converted to Anthropic's format), the Anthropic SDK on /v1/messages (relayed) and the Gemini
 * SDK, plain and streamed over AWS's binary event stream; quota to the unit; Bedrock's errors and stream
 * exceptions in each client's protocol; cross-region profiles; the channel test and the model list.
 */
const GOOD_KEY = `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|${MOCK_REGION}`;
const WRONG_SECRET = 'Zm9vYmFyYmF6cXV4V1JPTkdTRUNSRVRLRVkxMjM0';
const MODEL = 'claude-sonnet-4-5-20250929';
const CROSS = 'claude-3-5-sonnet-20241022';
const PROFILE = 'claude-profile';
const THROTTLED = 'claude-throttled';
const BREAKING = 'claude-breaking';
const FORGED = 'claude-forged';
const PRICED = [MODEL, CROSS, PROFILE, THROTTLED, BREAKING, FORGED];

describe('provider: AWS Claude (Bedrock)', () => {
  let server: TestServer;
  let mock: BedrockMock;
  let admin: ConsoleClient;
  let apiKey: string;
  let userId: number;
  let tokenId: number;
  let mainChannel: number;

  const openai = () => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });

  async function createChannel(o: {
    name: string;
    key: string;
    models: string[];
    mapping?: Record<string, string>;
    setting?: Record<string, unknown>;
  }) {
    return admin.post('/api/channel/', {
      type: 33,
      name: o.name,
      key: o.key,
      base_url: mock.url,
      models: o.models,
      group: 'default',
      auto_ban: 0,
      ...(o.mapping ? { model_mapping: JSON.stringify(o.mapping) } : {}),
      ...(o.setting ? { setting: JSON.stringify(o.setting) } : {}),
    });
  }

  beforeAll(async () => {
    mock = await startBedrockMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await seedUser(ctx, { quota: 100_000_000 });
    userId = user.id;
    const token = await seedToken(ctx, { userId, remain: 50_000_000 });
    apiKey = token.apiKey;
    tokenId = token.id;
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(PRICED.map((m) => [m, n])));
    await ctx.options.set('ModelRatio', ratio(1));
    await ctx.options.set('CompletionRatio', ratio(2));
    await ctx.options.set('CacheRatio', ratio(0.1));
    await ctx.options.set('CreateCacheRatio', ratio(1.25));

    const main = await createChannel({
      name: 'bedrock-main',
      key: GOOD_KEY,
      models: [MODEL, THROTTLED, BREAKING],
      mapping: { [THROTTLED]: THROTTLED_MODEL, [BREAKING]: BREAKING_MODEL },
    });
    expect(main.success, main.message).toBe(true);
    mainChannel = main.data.ids[0];
    const cross = await createChannel({
      name: 'bedrock-cross-region',
      key: GOOD_KEY,
      models: [CROSS, PROFILE],
      mapping: { [PROFILE]: PROFILE_ARN },
      setting: { aws_cross_region: true },
    });
    expect(cross.success, cross.message).toBe(true);
    const forged = await createChannel({
      name: 'bedrock-wrong-secret',
      key: `${MOCK_ACCESS_KEY}|${WRONG_SECRET}|${MOCK_REGION}`,
      models: [FORGED],
      mapping: { [FORGED]: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
    });
    expect(forged.success, forged.message).toBe(true);
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
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

  /** The rows once `n` are there: a stream that failed mid-way is settled after its client saw the error. */
  async function rowsEventually(id: number, n: number) {
    for (let i = 0; i < 100; i++) {
      const rows = await rowsAfter(id);
      if (rows.length >= n) return rows;
      await new Promise((r) => setTimeout(r, 20));
    }
    return rowsAfter(id);
  }

  /** The user's used quota and the token's remaining quota. */
  async function balances() {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select('remain_quota')
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    return { used: Number(u.used_quota), remain: Number(t.remain_quota) };
  }

  /** Runs a call and checks it was billed once, at the recording's usage, on the user and on the token. */
  async function billedAs<T>(usage: ReturnType<typeof anthropicAnswer>['usage'], call: () => Promise<T>) {
    const before = await lastLogId();
    const was = await balances();
    const result = await call();
    const rows = await rowsAfter(before);
    expect(rows).toHaveLength(1);
    expect(rows[0].prompt_tokens).toBe(usage.prompt);
    expect(rows[0].completion_tokens).toBe(usage.output);
    const quota = expectedQuota(usage);
    expect(rows[0].quota).toBe(quota);
    const now = await balances();
    expect(now.used - was.used).toBe(quota);
    expect(was.remain - now.remain).toBe(quota);
    return result;
  }

  const lastCall = () => mock.requests.at(-1);

  /** The error a call fails with (a call that succeeds fails the test). */
  async function failureOf<E>(call: Promise<unknown>): Promise<E> {
    try {
      await call;
    } catch (err) {
      return err as E;
    }
    throw new Error('the call was expected to fail');
  }

  it('refuses keys that are not AccessKeyId|SecretAccessKey|Region when a channel is saved', async () => {
    for (const key of [
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}`,
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|${MOCK_REGION}|extra`,
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|not a region`,
      `akia-lower|${MOCK_SECRET}|${MOCK_REGION}`,
    ]) {
      const r = await createChannel({ name: 'bad-key', key, models: [MODEL] });
      expect(r.success).toBe(false);
      expect(r.message).toContain('AccessKeyId|SecretAccessKey|Region');
      expect(r.message).not.toContain(MOCK_SECRET);
    }
  });

  it('signs every call with SigV4 (the mock recomputes it) and sends the Anthropic body Bedrock wants', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const answer = await billedAs(recorded.usage, () =>
      openai().chat.completions.create({
        model: MODEL,
        max_tokens: 64,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello, how are you?' },
        ],
      }),
    );
    expect(answer.choices[0].message.content).toBe(recorded.text);
    expect(answer.usage?.prompt_tokens).toBe(recorded.usage.prompt);
    expect(answer.usage?.completion_tokens).toBe(recorded.usage.output);
    const call = lastCall();
    expect(call?.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(call?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${MOCK_ACCESS_KEY}/\\d{8}/${MOCK_REGION}/bedrock/aws4_request, `,
      ),
    );
    expect(call?.body).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user' }],
    });
    expect(call?.body).not.toHaveProperty('model');
    expect(call?.body).not.toHaveProperty('stream');
  });

  it('streams to an OpenAI client from the binary event stream, with usage', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.chunks.txt');
    const text = await billedAs(recorded.usage, async () => {
      const stream = await openai().chat.completions.create({
        model: MODEL,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hello, how are you?' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(usage?.prompt_tokens).toBe(recorded.usage.prompt);
      expect(usage?.completion_tokens).toBe(recorded.usage.output);
      return text;
    });
    expect(text).toBe(recorded.text);
    expect(lastCall()?.path).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    );
  });

  it('relays the Anthropic SDK on /v1/messages, its betas Bedrock takes as anthropic_beta', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const msg = await billedAs(recorded.usage, () =>
      anthropic().messages.create(
        { model: MODEL, max_tokens: 128, messages: [{ role: 'user', content: 'Hello, how are you?' }] },
        { headers: { 'anthropic-beta': 'token-efficient-tools-2025-02-19, context-1m-2025-08-07' } },
      ),
    );
    expect(msg.content).toEqual([{ type: 'text', text: recorded.text }]);
    expect(msg.usage.input_tokens).toBe(recorded.usage.prompt);
    expect(msg.usage.output_tokens).toBe(recorded.usage.output);
    expect(lastCall()?.body.anthropic_beta).toEqual([
      'token-efficient-tools-2025-02-19',
      'context-1m-2025-08-07',
    ]);
  });

  it("keeps Claude Code's flags Bedrock refuses and structured output off the call; an operator's flag goes as set", async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const msg = await withModelBeta(server.ctx, MODEL, 'future-feature-2027-01-01', () =>
      billedAs(recorded.usage, () =>
        claudeCodeAsk(anthropic(), MODEL, 'fine-grained-tool-streaming-2025-05-14'),
      ),
    );
    expect(msg.content).toEqual([{ type: 'text', text: recorded.text }]);
    expect(lastCall()?.body.anthropic_beta).toEqual([
      'interleaved-thinking-2025-05-14',
      'tool-search-tool-2025-10-19',
      'fine-grained-tool-streaming-2025-05-14',
      'future-feature-2027-01-01',
    ]);
    expect(lastCall()?.body).not.toHaveProperty('output_format');
  });

  it('streams to the Anthropic SDK as Anthropic events', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.chunks.txt');
    const final = await billedAs(recorded.usage, async () => {
      const stream = anthropic().messages.stream({
        model: MODEL,
        max_tokens: 128,
        messages: [{ role: 'user', content: 'Hello, how are you?' }],
      });
      let deltas = '';
      stream.on('text', (t) => {
        deltas += t;
      });
      const final = await stream.finalMessage();
      expect(deltas).toBe(recorded.text);
      return final;
    });
    expect(final.content).toEqual([{ type: 'text', text: recorded.text }]);
    expect(final.usage.output_tokens).toBe(recorded.usage.output);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('streams tool calls to an OpenAI client, and answers a Gemini client', async () => {
    const tools = anthropicAnswer('anthropic/messages/tool-use-parallel.chunks.txt');
    expect(tools.calls.length).toBeGreaterThan(1);
    const parsed = await billedAs(tools.usage, () =>
      formatClient('openai', server.url, apiKey).ask(MODEL, { stream: true, tools: true }),
    );
    expect(parsed.calls).toEqual(tools.calls);
    expect(lastCall()?.body.tools?.[0]).toMatchObject({
      name: 'get_weather',
      input_schema: { type: 'object' },
    });

    const plain = anthropicAnswer('anthropic/messages/text.json');
    const gemini = await billedAs(plain.usage, () =>
      formatClient('gemini', server.url, apiKey).ask(MODEL, {}),
    );
    expect(gemini.text).toBe(plain.text);
  });

  it('calls the cross-region profile of the region, and an inference profile ARN as it is', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const r = await openai().chat.completions.create({
      model: CROSS,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(r.choices[0].message.content).toBe(recorded.text);
    expect(lastCall()?.modelId).toBe('us.anthropic.claude-3-5-sonnet-20241022-v2:0');

    const s = await anthropic()
      .messages.stream({ model: PROFILE, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(s.content).toEqual([
      { type: 'text', text: anthropicAnswer('anthropic/messages/text.chunks.txt').text },
    ]);
    expect(lastCall()?.modelId).toBe(PROFILE_ARN);
    expect(lastCall()?.path).toBe(`/model/${encodeURIComponent(PROFILE_ARN)}/invoke-with-response-stream`);
  });

  it("maps Bedrock's ThrottlingException to 429 in each client's protocol, nothing billed", async () => {
    const before = await lastLogId();
    const was = await balances();
    const e1 = await failureOf<InstanceType<typeof OpenAI.APIError>>(
      openai().chat.completions.create({ model: THROTTLED, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(e1).toBeInstanceOf(OpenAI.APIError);
    expect(e1.status).toBe(429);
    expect(e1.message).toContain('Too many requests, please wait before trying again.');

    const e2 = await failureOf<InstanceType<typeof Anthropic.APIError>>(
      anthropic().messages.create({
        model: THROTTLED,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(e2).toBeInstanceOf(Anthropic.APIError);
    expect(e2.status).toBe(429);
    expect((e2.error as { error?: { type?: string } })?.error?.type).toBe('rate_limit_error');

    // A stream whose first message is a throttlingException: still an ordinary 429, nothing was sent yet.
    const e3 = await failureOf<InstanceType<typeof Anthropic.APIError>>(
      anthropic()
        .messages.stream({ model: THROTTLED, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage(),
    );
    expect(e3).toBeInstanceOf(Anthropic.APIError);
    expect(e3.status).toBe(429);
    expect(e3.message).toContain('Too many tokens');

    for (const e of [e1, e2, e3]) {
      expect(e.message).not.toContain(MOCK_SECRET);
      expect(e.message).toMatch(/request id/);
    }
    expect(await rowsAfter(before)).toHaveLength(0);
    expect((await balances()).used).toBe(was.used);
  });

  it('ends a stream that fails mid-way with an error event, in Anthropic and OpenAI terms', async () => {
    const before = await lastLogId();
    const stream = anthropic().messages.stream({
      model: BREAKING,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let seen = '';
    stream.on('text', (t) => {
      seen += t;
    });
    const err = await failureOf<InstanceType<typeof Anthropic.APIError>>(stream.finalMessage());
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.message).toContain('Model stream error: the model stopped responding');
    expect((err.error as { error?: { type?: string } })?.error?.type).toBe('api_error');
    expect(seen).toBe('Hello! I');

    const chat = await openai().chat.completions.create({
      model: BREAKING,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of chat) text += chunk.choices[0]?.delta?.content ?? '';
    })().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(text).toBe('Hello! I');
    expect(failure?.message).toContain('Model stream error: the model stopped responding');
    // Billed for what was produced: the prompt of message_start and at least the text that reached the client.
    const rows = await rowsEventually(before, 2);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.model_name).toBe(BREAKING);
      expect(row.prompt_tokens).toBe(12);
      expect(row.completion_tokens).toBeGreaterThanOrEqual(1);
    }
  });

  it("passes AWS's signature refusal on as 403 without the secret", async () => {
    const before = await lastLogId();
    const err = await failureOf<InstanceType<typeof OpenAI.APIError>>(
      openai().chat.completions.create({ model: FORGED, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(403);
    expect(err.message).toContain('The request signature we calculated does not match');
    expect(err.message).not.toContain(WRONG_SECRET);
    expect(err.message).not.toContain(MOCK_SECRET);
    expect(await rowsAfter(before)).toHaveLength(0);
  });

  it('tests a channel and lists its models through the console', async () => {
    const test = await admin.get(`/api/channel/test/${mainChannel}`);
    expect(test.success, test.message).toBe(true);
    expect(lastCall()?.path).toMatch(/\/invoke$/);

    const models = await admin.get(`/api/channel/fetch_models/${mainChannel}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual([
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]);
    expect(lastCall()?.method).toBe('GET');
  });
});

describe('bedrock: event stream decoding and model ids', () => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const chunk = (event: unknown) =>
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: 'chunk' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') })),
    });
  const collect = async (parts: Buffer[]) => {
    let out = '';
    for await (const b of anthropicSse(
      (async function* () {
        yield* parts;
      })(),
    ))
      out += b.toString();
    return out;
  };

  it('rebuilds messages fed one byte at a time', async () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo\nworld' } },
    ];
    const all = Buffer.concat(events.map(chunk));
    const bytes = [...all].map((b) => Buffer.from([b]));
    expect(await collect(bytes)).toBe(
      events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
    );
  });

  it('turns exceptions into Anthropic error events and refuses a cut or corrupt stream', async () => {
    const exception = codec.encode({
      headers: {
        ':exception-type': { type: 'string', value: 'validationException' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'exception' },
      },
      body: fromUtf8(JSON.stringify({ message: 'messages: text content blocks must be non-empty' })),
    });
    expect(await collect([Buffer.from(exception)])).toBe(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } })}\n\n`,
    );
    const whole = Buffer.from(chunk({ type: 'ping' }));
    await expect(collect([whole.subarray(0, whole.length - 3)])).rejects.toThrow(/ended inside a message/);
    const corrupt = Buffer.from(whole);
    corrupt[corrupt.length - 6] ^= 0xff;
    await expect(collect([corrupt])).rejects.toThrow(/malformed/);
  });

  it('maps Anthropic names to Bedrock ids and prefixes cross-region profiles', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20241022', '')).toBe(
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
    );
    expect(bedrockModelId('claude-3-7-sonnet-20250219', '')).toBe(
      'anthropic.claude-3-7-sonnet-20250219-v1:0',
    );
    expect(bedrockModelId('claude-opus-4-1', '')).toBe('anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-haiku-4-5-20251001', 'eu')).toBe(
      'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
    expect(bedrockModelId('us.anthropic.claude-sonnet-4-20250514-v1:0', 'eu')).toBe(
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
    );
    expect(bedrockModelId(PROFILE_ARN, 'us')).toBe(PROFILE_ARN);
    expect(crossRegionPrefix(true, 'us-east-1')).toBe('us');
    expect(crossRegionPrefix(true, 'eu-central-1')).toBe('eu');
    expect(crossRegionPrefix(true, 'ap-northeast-1')).toBe('apac');
    expect(crossRegionPrefix(true, 'us-gov-west-1')).toBe('us-gov');
    expect(crossRegionPrefix('global', 'us-east-1')).toBe('global');
    expect(crossRegionPrefix(false, 'us-east-1')).toBe('');
    expect(crossRegionPrefix(undefined, 'us-east-1')).toBe('');
  });
});
