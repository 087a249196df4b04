import Anthropic from '@anthropic-ai/sdk';
import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs } from './support/console-client.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Sessions shaped like the two agents that carry most of this traffic, each against an Anthropic (or
 * Responses) channel and against an OpenAI-compatible chat channel:
 * - Claude Code: `/v1/messages?beta=true` with its beta header, system as blocks with cache_control, tools,
 *   thinking, streaming, count_tokens before each turn, then a follow-up turn that replays the thinking block
 *   with its signature and carries the tool result.
 * - Codex: `/v1/responses` with instructions, reasoning effort, store:false, streaming, then a turn whose input
 *   carries the function call and its function_call_output.
 */
const CLAUDE_CODE_BETA = 'claude-code-20250219,interleaved-thinking-2025-05-14';

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'Bash',
    description: 'Run a shell command',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
  {
    name: 'Read',
    description: 'Read a file',
    input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    cache_control: { type: 'ephemeral' },
  },
];

const SYSTEM: Anthropic.TextBlockParam[] = [
  { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
  { type: 'text', text: 'Work in the repository the user names.', cache_control: { type: 'ephemeral' } },
];

describe('relay: agent-shaped sessions', () => {
  let server: TestServer;
  let mock: FormatsMock;
  let chatMock: MockUpstream;
  let apiKey: string;

  beforeAll(async () => {
    mock = await startFormatsMock();
    chatMock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    const user = await seedUser(ctx, { quota: 100_000_000 });
    apiKey = (await seedToken(ctx, { userId: user.id, remain: 100_000_000 })).apiKey;
    await ctx.options.set(
      'ModelRatio',
      JSON.stringify({
        'claude-agent': 1.5,
        'claude-compat': 1.5,
        'codex-agent': 0.625,
        'codex-compat': 0.625,
        'claude-retry': 1.5,
      }),
    );
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: ['claude-agent'],
    });
    await seedChannel(ctx, {
      type: 43,
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: ['claude-compat', 'codex-compat'],
      modelMapping: { 'claude-compat': 'gpt-4o', 'codex-compat': 'gpt-4o' },
    });
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: mock.url,
      key: 'sk-resp-mock',
      models: ['codex-agent'],
      setting: { responses_api: true },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await chatMock?.close();
  });

  const logCount = async () => {
    await flushLedger(server.ctx);
    const r = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('type', '=', 2)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  };

  for (const model of ['claude-agent', 'claude-compat'])
    it(`a Claude Code session works on ${model === 'claude-agent' ? 'an Anthropic' : 'an OpenAI-compatible'} channel`, async () => {
      const client = new Anthropic({
        apiKey,
        baseURL: server.url,
        maxRetries: 0,
        defaultHeaders: { 'anthropic-beta': CLAUDE_CODE_BETA },
      });
      const messages: Anthropic.MessageParam[] = [
        { role: 'user', content: 'List the files, then read README.md' },
      ];
      const logsBefore = await logCount();
      const counted = await client.beta.messages.countTokens({
        model,
        system: SYSTEM,
        tools: TOOLS,
        messages,
      });
      expect(counted.input_tokens).toBeGreaterThan(20);
      expect(await logCount()).toBe(logsBefore);

      const first = await client.beta.messages
        .stream({
          model,
          max_tokens: 32000,
          system: SYSTEM,
          tools: TOOLS,
          thinking: { type: 'enabled', budget_tokens: 4096 },
          messages,
        })
        .finalMessage();
      expect(first.usage.input_tokens).toBeGreaterThanOrEqual(0);
      expect(first.content.length).toBeGreaterThan(0);
      if (model === 'claude-agent') {
        const seen = mock.requests.at(-1);
        expect(seen?.query).toBe('');
        expect(String(seen?.headers['anthropic-beta'])).toContain('claude-code-20250219');
        expect(seen?.body.system).toEqual(SYSTEM);
        const thinking = first.content.find((b) => b.type === 'thinking');
        expect(thinking && 'signature' in thinking && thinking.signature).toBeTruthy();
      }

      // The follow-up turn: the assistant's blocks as they came (thinking with its signature) and a tool result.
      const toolId = 'toolu_01A09q90qw90lq917835lq9';
      const assistant: Anthropic.Beta.BetaContentBlockParam[] = [
        ...(first.content.filter((b) => b.type === 'thinking') as Anthropic.Beta.BetaContentBlockParam[]),
        { type: 'tool_use', id: toolId, name: 'Bash', input: { command: 'ls' } },
      ];
      const second = await client.beta.messages
        .stream({
          model,
          max_tokens: 32000,
          system: SYSTEM,
          tools: TOOLS,
          thinking: { type: 'enabled', budget_tokens: 4096 },
          messages: [
            ...messages,
            { role: 'assistant', content: assistant },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: toolId, content: 'README.md\nsrc' }],
            },
          ],
        })
        .finalMessage();
      expect(second.content.length).toBeGreaterThan(0);
      if (model === 'claude-compat') {
        const sent = chatMock.requests.at(-1)?.body;
        const toolMessage = sent.messages.find((m: { role: string }) => m.role === 'tool');
        expect(toolMessage).toMatchObject({ tool_call_id: toolId, content: 'README.md\nsrc' });
        expect(sent.stream_options).toEqual({ include_usage: true });
      }
      expect(await logCount()).toBe(logsBefore + 2);
    });

  it('retries a Claude model on an OpenAI-compatible channel when its Anthropic channel fails', async () => {
    const { ctx } = server;
    await ctx.options.set('RetryTimes', '2');
    const failing = await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-wrong',
      models: ['claude-retry'],
      priority: 10,
      autoBan: false,
    });
    const fallback = await seedChannel(ctx, {
      type: 43,
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: ['claude-retry'],
      modelMapping: { 'claude-retry': 'gpt-4o' },
    });
    const client = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    const { data, response } = await client.messages
      .create({ model: 'claude-retry', max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text' });
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    await flushLedger(ctx);
    const row = await ctx.logDb.db
      .selectFrom('logs')
      .select(['channel_id', 'other'])
      .where('request_id', '=', String(response.headers.get('x-oneapi-request-id')))
      .executeTakeFirstOrThrow();
    expect(row.channel_id).toBe(fallback.id);
    expect(JSON.parse(row.other).admin_info.use_channel).toEqual([String(failing.id), String(fallback.id)]);
  });

  it('the playground talks to Claude models through the console session', async () => {
    const player = await loginAs(server, { username: 'player', quota: 1_000_000 });
    const res = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: player.cookie,
        'new-api-user': String(player.userId),
      },
      body: JSON.stringify({ model: 'claude-agent', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as OpenAI.ChatCompletion;
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.content).toMatch(/Hello/);
    expect(mock.requests.at(-1)?.body).toMatchObject({ model: 'claude-agent', max_tokens: 8192 });
  });

  for (const model of ['codex-agent', 'codex-compat'])
    it(`a Codex session works on ${model === 'codex-agent' ? 'a Responses' : 'an OpenAI-compatible chat'} channel`, async () => {
      const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const tools: OpenAI.Responses.Tool[] = [
        {
          type: 'function',
          name: 'shell',
          description: 'Runs a shell command',
          parameters: {
            type: 'object',
            properties: { command: { type: 'array', items: { type: 'string' } } },
          },
          strict: false,
        },
      ];
      const logsBefore = await logCount();
      const base = {
        model,
        instructions: 'You are Codex, a coding agent.',
        tools,
        reasoning: { effort: 'medium' as const, summary: 'auto' as const },
        store: false,
        include: ['reasoning.encrypted_content' as const],
      };
      let completed: OpenAI.Responses.Response | undefined;
      const stream = await client.responses.create({
        ...base,
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in this repo?' }] },
        ],
        stream: true,
      });
      const seen: string[] = [];
      for await (const ev of stream) {
        seen.push(ev.type);
        if (ev.type === 'response.completed') completed = ev.response;
      }
      expect(seen[0]).toBe('response.created');
      expect(seen.at(-1)).toBe('response.completed');
      expect(completed?.id).toBeTruthy();
      expect(completed?.usage?.input_tokens).toBeGreaterThan(0);

      const second = await client.responses.create({
        ...base,
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in this repo?' }] },
          { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'README.md\nsrc' },
        ],
        stream: true,
      });
      let done = false;
      for await (const ev of second) if (ev.type === 'response.completed') done = true;
      expect(done).toBe(true);
      if (model === 'codex-compat') {
        const sent = chatMock.requests.at(-1)?.body;
        expect(sent.messages[0]).toMatchObject({ role: 'system', content: 'You are Codex, a coding agent.' });
        expect(sent.messages.find((m: { role: string }) => m.role === 'tool')).toMatchObject({
          tool_call_id: 'call_1',
          content: 'README.md\nsrc',
        });
        expect(sent.reasoning_effort).toBe('medium');
      } else {
        const sent = mock.requests.at(-1)?.body;
        expect(sent.instructions).toBe('You are Codex, a coding agent.');
        expect(sent.input.find((i: { type: string }) => i.type === 'function_call_output')).toMatchObject({
          call_id: 'call_1',
          output: 'README.md\nsrc',
        });
      }
      expect(await logCount()).toBe(logsBefore + 2);
    });
});
