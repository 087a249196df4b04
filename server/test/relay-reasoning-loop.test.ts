import { ChannelType } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopClient, toolLoop } from './support/loop-clients.ts';
import { type ReasoningMock, startReasoningMock } from './support/mock-reasoning.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * A tool loop of two turns with thinking on, for every pair of an agent's format and a channel of another
 * format: the second upstream call must carry the reasoning artifact the first upstream answer issued, byte
 * for byte (the mock refuses the turn otherwise, as the real servers do), and the same thinking settings.
 */
type Channel = 'anthropic' | 'responses' | 'gemini';
const MODEL: Record<Channel, string> = {
  anthropic: 'loop-claude',
  responses: 'loop-gpt',
  gemini: 'loop-gemini',
};
const PATH: Record<Channel, RegExp> = {
  anthropic: /^\/v1\/messages$/,
  responses: /^\/v1\/responses$/,
  gemini: /^\/v1beta\/models\//,
};
const CLIENTS: LoopClient[] = ['openai', 'responses', 'anthropic', 'gemini'];
const CHANNELS: Channel[] = ['anthropic', 'responses', 'gemini'];

/** The upstream's thinking settings in a request body. */
const thinkingOf = (ch: Channel, body: any) =>
  ch === 'anthropic'
    ? { thinking: body.thinking, max_tokens: body.max_tokens }
    : ch === 'responses'
      ? { reasoning: body.reasoning, include: body.include }
      : body.generationConfig?.thinkingConfig;

describe('relay: reasoning survives a tool loop across formats', () => {
  let server: TestServer;
  let mock: ReasoningMock;
  let apiKey: string;

  beforeAll(async () => {
    mock = await startReasoningMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    const user = await seedUser(ctx, { quota: 100_000_000 });
    apiKey = (await seedToken(ctx, { userId: user.id, remain: 100_000_000 })).apiKey;
    await ctx.options.set(
      'ModelRatio',
      JSON.stringify({ 'loop-claude': 1.5, 'loop-gpt': 0.625, 'loop-gemini': 0.15 }),
    );
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: [MODEL.anthropic],
      modelMapping: { [MODEL.anthropic]: 'claude-sonnet-4-5' },
    });
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: mock.url,
      key: 'sk-resp-mock',
      models: [MODEL.responses],
      modelMapping: { [MODEL.responses]: 'gpt-5' },
      setting: { responses_api: true },
    });
    await seedChannel(ctx, {
      type: ChannelType.Gemini,
      baseUrl: mock.url,
      key: 'gm-mock',
      models: [MODEL.gemini],
      modelMapping: { [MODEL.gemini]: 'gemini-2.5-flash' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  for (const client of CLIENTS)
    for (const channel of CHANNELS.filter((c) => c !== client))
      for (const stream of [false, true])
        it(`${client} client on a ${channel} channel (${stream ? 'stream' : 'JSON'})`, async () => {
          const before = mock.requests.length;
          const text = await toolLoop(client, server.url, apiKey, MODEL[channel], stream);
          expect(text).toContain('18C');
          const calls = mock.requests.slice(before).filter((r) => PATH[channel].test(r.path));
          expect(calls).toHaveLength(2);
          const [first, second] = calls.map((c) => c.body);
          expect(thinkingOf(channel, second)).toEqual(thinkingOf(channel, first));
          expect(thinkingOf(channel, first)).toBeTruthy();
          if (channel === 'anthropic') {
            const issued = mock.issued.anthropic.at(-1);
            const assistant = second.messages.find((m: any) => m.role === 'assistant');
            expect(assistant.content.slice(0, 2)).toEqual([
              { type: 'thinking', thinking: issued?.thinking, signature: issued?.signature },
              { type: 'redacted_thinking', data: issued?.redacted },
            ]);
            // The call ids are the upstream's own again (a chat client's carried the envelope).
            expect(assistant.content[2].id).toMatch(/^toolu_[0-9a-f]{16}$/);
          } else if (channel === 'responses') {
            const reasoning = second.input.find((i: any) => i.type === 'reasoning');
            expect(reasoning.encrypted_content).toBe(mock.issued.responses.at(-1));
            expect(reasoning.summary[0].text).toContain('call the tool');
            const call = second.input.find((i: any) => i.type === 'function_call');
            expect(call.call_id).toMatch(/^call_[0-9a-f]{12}$/);
          } else {
            const model = second.contents.find((c: any) => c.role === 'model');
            const call = model.parts.find((p: any) => p.functionCall);
            expect(call.thoughtSignature).toBe(mock.issued.gemini.at(-1));
          }
        });
});
