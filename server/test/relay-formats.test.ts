import Anthropic from '@anthropic-ai/sdk';
import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicAnswer,
  chatAnswer,
  expectedQuota,
  geminiAnswer,
  type RecordedAnswer,
  responsesAnswer,
} from './support/fixture-answers.ts';
import { type Ask, type ClientFormat, formatClient, PNG } from './support/format-clients.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Every client format (the official openai chat and responses clients, @anthropic-ai/sdk, @google/genai)
 * against every upstream format (an OpenAI-compatible chat channel, an Anthropic channel, a Gemini channel
 * and an OpenAI channel on the Responses API), each replaying recorded provider answers. For each pair:
 * plain, streamed, tools with streamed arguments, thinking, an image input and an upstream error. Each case
 * compares what the client parsed with the recording, and the log row's quota with the recording's usage
 * priced by hand.
 */
type Upstream = 'chat' | 'anthropic' | 'gemini' | 'responses';
type Case = 'plain' | 'stream' | 'tools' | 'thinking' | 'image';

const ASKS: Record<Case, Ask> = {
  plain: {},
  stream: { stream: true },
  tools: { stream: true, tools: true },
  thinking: { stream: true, thinking: true },
  image: { image: true },
};

/** The recording each upstream mock replays for a case. */
const RECORDED: Record<Upstream, Record<Case, () => RecordedAnswer>> = {
  chat: {
    plain: () => chatAnswer('openai/chat/text.json'),
    stream: () => chatAnswer('openai/chat/text.chunks.txt'),
    tools: () => chatAnswer('openai/chat/text-then-tool-call.chunks.txt'),
    thinking: () => chatAnswer('deepseek/chat/reasoning.chunks.txt'),
    image: () => chatAnswer('openai/chat/text.json'),
  },
  anthropic: {
    plain: () => anthropicAnswer('anthropic/messages/text.json'),
    stream: () => anthropicAnswer('anthropic/messages/text.chunks.txt'),
    tools: () => anthropicAnswer('anthropic/messages/tool-use-parallel.chunks.txt'),
    thinking: () => anthropicAnswer('anthropic/messages/thinking.chunks.txt'),
    image: () => anthropicAnswer('anthropic/messages/text.json'),
  },
  gemini: {
    plain: () => geminiAnswer('google/generate-content/text.json'),
    stream: () => geminiAnswer('google/generate-content/text.chunks.txt'),
    tools: () => geminiAnswer('google/generate-content/function-call.chunks.txt'),
    thinking: () => geminiAnswer('google/generate-content/thought-parts.chunks.txt'),
    image: () => geminiAnswer('google/generate-content/text.json'),
  },
  responses: {
    plain: () => responsesAnswer('openai/responses/text.json'),
    stream: () => responsesAnswer('openai/responses/text.chunks.txt'),
    tools: () => responsesAnswer('openai/responses/reasoning-function-call.chunks.txt'),
    thinking: () => responsesAnswer('openai/responses/reasoning-summary.chunks.txt'),
    image: () => responsesAnswer('openai/responses/text.json'),
  },
};

/** The status each upstream's recorded error comes back with. */
const ERROR_STATUS: Record<Upstream, number> = { chat: 429, anthropic: 400, gemini: 429, responses: 429 };

const CLIENTS: ClientFormat[] = ['openai', 'anthropic', 'gemini', 'responses'];
const UPSTREAMS: Upstream[] = ['chat', 'anthropic', 'gemini', 'responses'];

/** The client-facing model names of an upstream: `<upstream>-model`, `-think` and `-error`. */
const modelOf = (up: Upstream, c: Case | 'error') =>
  c === 'error' ? `${up}-error` : c === 'thinking' ? `${up}-think` : `${up}-model`;

describe('relay: every client format against every upstream format', () => {
  let server: TestServer;
  let chatMock: MockUpstream;
  let mock: FormatsMock;
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    chatMock = await startMockUpstream();
    mock = await startFormatsMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    const user = await seedUser(ctx, { quota: 100_000_000 });
    userId = user.id;
    apiKey = (await seedToken(ctx, { userId, remain: 100_000_000 })).apiKey;
    const models = UPSTREAMS.flatMap((up) => [
      modelOf(up, 'plain'),
      modelOf(up, 'thinking'),
      modelOf(up, 'error'),
    ]);
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(models.map((m) => [m, n])));
    await ctx.options.set('ModelRatio', ratio(1));
    await ctx.options.set('CompletionRatio', ratio(2));
    await ctx.options.set('CacheRatio', ratio(0.1));
    await ctx.options.set('CreateCacheRatio', ratio(1.25));
    const mapped = (up: Upstream, plain: string, think: string, error: string) => ({
      [modelOf(up, 'plain')]: plain,
      [modelOf(up, 'thinking')]: think,
      [modelOf(up, 'error')]: error,
    });
    // DeepSeek's type speaks OpenAI chat and has no Responses API: every client is converted to chat there.
    await seedChannel(ctx, {
      type: 43,
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: [modelOf('chat', 'plain'), modelOf('chat', 'thinking')],
      modelMapping: mapped('chat', 'gpt-4o', 'deepseek-reasoner', 'gpt-4o'),
    });
    await seedChannel(ctx, {
      type: 43,
      baseUrl: chatMock.url,
      key: 'sk-quota',
      models: [modelOf('chat', 'error')],
      modelMapping: mapped('chat', 'gpt-4o', 'deepseek-reasoner', 'gpt-4o'),
      autoBan: false,
    });
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: [
        modelOf('anthropic', 'plain'),
        modelOf('anthropic', 'thinking'),
        modelOf('anthropic', 'error'),
      ],
      modelMapping: mapped('anthropic', 'claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-error'),
      autoBan: false,
    });
    await seedChannel(ctx, {
      type: ChannelType.Gemini,
      baseUrl: mock.url,
      key: 'gm-mock',
      models: [modelOf('gemini', 'plain'), modelOf('gemini', 'thinking'), modelOf('gemini', 'error')],
      modelMapping: mapped('gemini', 'gemini-2.5-flash', 'gemini-2.5-flash', 'gemini-error'),
      autoBan: false,
    });
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: mock.url,
      key: 'sk-resp-mock',
      models: [
        modelOf('responses', 'plain'),
        modelOf('responses', 'thinking'),
        modelOf('responses', 'error'),
      ],
      modelMapping: mapped('responses', 'gpt-5', 'gpt-5', 'gpt-error'),
      setting: { responses_api: true },
      autoBan: false,
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await chatMock?.close();
  });

  async function lastLogId(): Promise<number> {
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

  async function usedQuota(): Promise<number> {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(u.used_quota);
  }

  /** The upstream request the last call made (the chat channel has its own mock). */
  const lastUpstreamBody = (up: Upstream) =>
    (up === 'chat' ? chatMock.requests.at(-1) : mock.requests.at(-1))?.body;

  it('bills Anthropic cache writes at the cache-write ratio, for an Anthropic client and a converted OpenAI one', async () => {
    const recorded = anthropicAnswer('anthropic/messages/cache-write.chunks.txt');
    expect(recorded.usage.write5m).toBeGreaterThan(0);
    const anthropic = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    let before = await lastLogId();
    const msg = await anthropic.messages
      .stream({
        model: modelOf('anthropic', 'plain'),
        max_tokens: 1,
        system: [
          { type: 'text', text: 'A long, cached system prompt.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [{ role: 'user', content: 'Say OK' }],
      })
      .finalMessage();
    expect(msg.usage.cache_creation_input_tokens).toBe(recorded.usage.write5m);
    let rows = await rowsAfter(before);
    expect(rows[0].quota).toBe(expectedQuota(recorded.usage));
    expect(JSON.parse(rows[0].other)).toMatchObject({
      cache_creation_tokens: recorded.usage.write5m,
      cache_creation_ratio: 1.25,
    });

    // An OpenAI client with a cache mark on its system part (as OpenRouter and LiteLLM clients send it).
    before = await lastLogId();
    const chat = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const stream = await chat.chat.completions.create({
      model: modelOf('anthropic', 'plain'),
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        {
          role: 'system',
          content: [
            {
              type: 'text',
              text: 'A long, cached system prompt.',
              cache_control: { type: 'ephemeral' },
            } as OpenAI.ChatCompletionContentPartText,
          ],
        },
        { role: 'user', content: 'Say OK' },
      ],
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.prompt_tokens).toBe(recorded.usage.prompt);
    rows = await rowsAfter(before);
    expect(rows[0].quota).toBe(expectedQuota(recorded.usage));
  });

  for (const client of CLIENTS)
    for (const up of UPSTREAMS)
      describe(`${client} client -> ${up} channel`, () => {
        for (const c of Object.keys(ASKS) as Case[])
          it(c, async () => {
            const recorded = RECORDED[up][c]();
            const before = await lastLogId();
            const parsed = await formatClient(client, server.url, apiKey).ask(modelOf(up, c), ASKS[c]);
            if (c === 'tools') {
              expect(recorded.calls.length).toBeGreaterThan(0);
              expect(parsed.calls).toEqual(recorded.calls);
            } else expect(parsed.text).toBe(recorded.text);
            if (c === 'thinking') {
              expect(recorded.thinking).not.toBe('');
              // Gemini's and Anthropic's clients see thinking as such; the others too, as reasoning text.
              expect(parsed.thinking).toBe(recorded.thinking);
            }
            if (c === 'image') expect(JSON.stringify(lastUpstreamBody(up))).toContain(PNG);
            const rows = await rowsAfter(before);
            expect(rows).toHaveLength(1);
            expect(rows[0].prompt_tokens).toBe(recorded.usage.prompt);
            expect(rows[0].completion_tokens).toBe(recorded.usage.output);
            expect(rows[0].quota).toBe(expectedQuota(recorded.usage));
          });

        it('upstream error', async () => {
          const before = await lastLogId();
          const used = await usedQuota();
          const err = await formatClient(client, server.url, apiKey)
            .ask(modelOf(up, 'error'), {})
            .then(
              () => null,
              (e: unknown) => e as { status?: number; message?: string },
            );
          expect(err).not.toBeNull();
          expect(err?.status).toBe(ERROR_STATUS[up]);
          expect(err?.message).toMatch(/request id/);
          expect(await rowsAfter(before)).toHaveLength(0);
          expect(await usedQuota()).toBe(used);
        });
      });
});
