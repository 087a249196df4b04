import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import * as cloud from './support/cloud-claude.ts';
import { anthropicAnswer } from './support/fixture-answers.ts';
import {
  BREAKING_MODEL,
  MOCK_ACCESS_KEY,
  MOCK_REGION,
  MOCK_SECRET,
  PROFILE_ARN,
  startBedrockMock,
  THROTTLED_MODEL,
} from './support/mock-bedrock.ts';
import { type ClientError, failed, HI, providerSuite } from './support/provider-harness.ts';

/**
 * AWS Claude (channel type 33) against a Bedrock mock that verifies every request's SigV4 signature with the
 * account's secret: channels made by an admin in the console (so the key shape is checked), then the official
 * OpenAI client (converted to Anthropic's format), the Anthropic SDK on /v1/messages (relayed) and the Gemini
 * SDK, plain and streamed over AWS's binary event stream; quota to the unit; Bedrock's errors and stream
 * exceptions in each client's protocol; cross-region profiles; the channel test and the model list. The event
 * stream decoder and model ids on their own: provider-bedrock-codec.test.ts.
 */
const GOOD_KEY = `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|${MOCK_REGION}`;
const WRONG_SECRET = 'Zm9vYmFyYmF6cXV4V1JPTkdTRUNSRVRLRVkxMjM0';
const MODEL = 'claude-sonnet-4-5-20250929';
const CROSS = 'claude-3-5-sonnet-20241022';
const [PROFILE, THROTTLED, BREAKING, FORGED] = [
  'claude-profile',
  'claude-throttled',
  'claude-breaking',
  'claude-forged',
];
const HELLO = [{ role: 'user' as const, content: 'Hello, how are you?' }];
const TEXT = anthropicAnswer('anthropic/messages/text.json');
const TEXT_STREAM = anthropicAnswer('anthropic/messages/text.chunks.txt');

describe('provider: AWS Claude (Bedrock)', () => {
  const t = providerSuite({
    mock: startBedrockMock,
    prices: cloud.recordedPrices([MODEL, CROSS, PROFILE, THROTTLED, BREAKING, FORGED]),
    channels: (mock) => ({
      'bedrock-main': {
        type: 33,
        key: GOOD_KEY,
        base_url: mock.url,
        models: [MODEL, THROTTLED, BREAKING],
        model_mapping: JSON.stringify({ [THROTTLED]: THROTTLED_MODEL, [BREAKING]: BREAKING_MODEL }),
      },
      'bedrock-cross-region': {
        type: 33,
        key: GOOD_KEY,
        base_url: mock.url,
        models: [CROSS, PROFILE],
        model_mapping: JSON.stringify({ [PROFILE]: PROFILE_ARN }),
        setting: JSON.stringify({ aws_cross_region: true }),
      },
      'bedrock-wrong-secret': {
        type: 33,
        key: `${MOCK_ACCESS_KEY}|${WRONG_SECRET}|${MOCK_REGION}`,
        base_url: mock.url,
        models: [FORGED],
        model_mapping: JSON.stringify({ [FORGED]: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }),
      },
    }),
  });
  const lastCall = () => t.mock.requests.at(-1);

  it('refuses keys that are not AccessKeyId|SecretAccessKey|Region when a channel is saved', async () => {
    const keys = [
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}`,
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|${MOCK_REGION}|extra`,
      `${MOCK_ACCESS_KEY}|${MOCK_SECRET}|not a region`,
      `akia-lower|${MOCK_SECRET}|${MOCK_REGION}`,
    ];
    for (const r of await t.saveEach(
      { type: 33, name: 'bad-key', base_url: t.mock.url, models: [MODEL] },
      keys,
    )) {
      expect(r.success).toBe(false);
      expect(r.message).toContain('AccessKeyId|SecretAccessKey|Region');
      expect(r.message).not.toContain(MOCK_SECRET);
    }
  });

  it('signs every call with SigV4 (the mock recomputes it) and sends the Anthropic body Bedrock wants', async () => {
    const ask = {
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'system' as const, content: 'Be brief.' }, ...HELLO],
    };
    await t.billedChat(ask, cloud.billRecorded(TEXT.usage), TEXT.text);
    const call = lastCall();
    expect(call?.path).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(call?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${MOCK_ACCESS_KEY}/\\d{8}/${MOCK_REGION}/bedrock/aws4_request, `,
      ),
    );
    cloud.expectCloudClaudeBody(call?.body, 'bedrock-2023-05-31');
    expect(call?.body).not.toHaveProperty('stream');
  });

  it('streams to an OpenAI client from the binary event stream, with usage', async () => {
    await t.billedStream(
      { model: MODEL, messages: HELLO },
      cloud.billRecorded(TEXT_STREAM.usage),
      TEXT_STREAM.text,
    );
    expect(lastCall()?.path).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    );
  });

  it('relays the Anthropic SDK on /v1/messages, its betas Bedrock takes as anthropic_beta', async () => {
    const betas = 'token-efficient-tools-2025-02-19, context-1m-2025-08-07';
    await cloud.billedMessage(t, { model: MODEL, max_tokens: 128, messages: HELLO }, TEXT, {
      'anthropic-beta': betas,
    });
    expect(lastCall()?.body.anthropic_beta).toEqual([
      'token-efficient-tools-2025-02-19',
      'context-1m-2025-08-07',
    ]);
  });

  it("keeps Claude Code's flags Bedrock refuses and structured output off the call; an operator's flag goes as set", async () => {
    await cloud.billedClaudeCode(
      t,
      MODEL,
      'fine-grained-tool-streaming-2025-05-14',
      TEXT,
      () => lastCall()?.body,
    );
    expect(lastCall()?.body.anthropic_beta).toEqual([
      'interleaved-thinking-2025-05-14',
      'tool-search-tool-2025-10-19',
      'fine-grained-tool-streaming-2025-05-14',
      'future-feature-2027-01-01',
    ]);
  });

  it('streams to the Anthropic SDK as Anthropic events', async () => {
    const message = await cloud.billedMessageStream(
      t,
      { model: MODEL, max_tokens: 128, messages: HELLO },
      TEXT_STREAM,
    );
    expect(message.stop_reason).toBe('end_turn');
  });

  it('streams tool calls to an OpenAI client, and answers a Gemini client', async () => {
    const tools = anthropicAnswer('anthropic/messages/tool-use-parallel.chunks.txt');
    expect(tools.calls.length).toBeGreaterThan(1);
    await cloud.billedAsk(t, 'openai', MODEL, { stream: true, tools: true }, tools);
    expect(lastCall()?.body.tools?.[0]).toMatchObject({
      name: 'get_weather',
      input_schema: { type: 'object' },
    });

    expect((await cloud.billedAsk(t, 'gemini', MODEL, {}, TEXT)).text).toBe(TEXT.text);
  });

  it('calls the cross-region profile of the region, and an inference profile ARN as it is', async () => {
    const r = await t.ask(CROSS);
    expect(r.choices[0].message.content).toBe(TEXT.text);
    expect(lastCall()?.modelId).toBe('us.anthropic.claude-3-5-sonnet-20241022-v2:0');

    const s = await t
      .anthropic()
      .messages.stream({ model: PROFILE, max_tokens: 32, messages: HI })
      .finalMessage();
    expect(s.content).toEqual([{ type: 'text', text: TEXT_STREAM.text }]);
    expect(lastCall()?.modelId).toBe(PROFILE_ARN);
    expect(lastCall()?.path).toBe(`/model/${encodeURIComponent(PROFILE_ARN)}/invoke-with-response-stream`);
  });

  it("maps Bedrock's ThrottlingException to 429 in each client's protocol, nothing billed", async () => {
    const noSecret = (_: unknown, e: ClientError) => {
      expect(e.message).not.toContain(MOCK_SECRET);
      expect(e.message).toMatch(/request id/);
    };
    await t.unbilled(() =>
      t.expectErrors([
        {
          via: 'chat',
          model: THROTTLED,
          status: 429,
          says: 'Too many requests, please wait before trying again.',
          check: noSecret,
        },
        { via: 'messages', model: THROTTLED, status: 429, type: 'rate_limit_error', check: noSecret },
        // A stream whose first message is a throttlingException: still an ordinary 429, nothing was sent yet.
        { via: 'messages-stream', model: THROTTLED, status: 429, says: 'Too many tokens', check: noSecret },
      ]),
    );
  });

  it('ends a stream that fails mid-way with an error event, in Anthropic and OpenAI terms', async () => {
    const before = await t.lastLogId();
    const stream = t.anthropic().messages.stream({ model: BREAKING, max_tokens: 64, messages: HI });
    let seen = '';
    stream.on('text', (text) => {
      seen += text;
    });
    const err = await failed(stream.finalMessage());
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.message).toContain('Model stream error: the model stopped responding');
    expect(err.error?.error?.type).toBe('api_error');
    expect(seen).toBe('Hello! I');

    const chat = await t.openai().chat.completions.create({ model: BREAKING, stream: true, messages: HI });
    let text = '';
    const cut = await failed(
      (async () => {
        for await (const chunk of chat) text += chunk.choices[0]?.delta?.content ?? '';
      })(),
    );
    expect(text).toBe('Hello! I');
    expect(cut.message).toContain('Model stream error: the model stopped responding');
    // Billed for what was produced: the prompt of message_start and at least the text that reached the client.
    // A stream that failed mid-way is settled after its client saw the error.
    await expect.poll(async () => (await t.logsAfter(before)).length).toBeGreaterThanOrEqual(2);
    const rows = await t.logsAfter(before);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.model_name).toBe(BREAKING);
      expect(row.prompt_tokens).toBe(12);
      expect(row.completion_tokens).toBeGreaterThanOrEqual(1);
    }
  });

  it("passes AWS's signature refusal on as 403 without the secret", async () => {
    const before = await t.lastLogId();
    const err = await failed(t.ask(FORGED));
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(403);
    expect(err.message).toContain('The request signature we calculated does not match');
    expect(err.message).not.toContain(WRONG_SECRET);
    expect(err.message).not.toContain(MOCK_SECRET);
    expect(await t.logsAfter(before)).toHaveLength(0);
  });

  it('tests a channel and lists its models through the console', async () => {
    const test = await t.admin.get(`/api/channel/test/${t.ids['bedrock-main']}`);
    expect(test.success, test.message).toBe(true);
    expect(lastCall()?.path).toMatch(/\/invoke$/);

    const models = await t.admin.get(`/api/channel/fetch_models/${t.ids['bedrock-main']}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual([
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]);
    expect(lastCall()?.method).toBe('GET');
  });
});
