import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { type LoopClient, toolLoop } from './support/loop-clients.ts';
import { startReasoningMock } from './support/mock-reasoning.ts';
import { threeChannelsOn, type UpstreamWire } from './support/three-channels.ts';

/**
 * A tool loop of two turns with thinking on, for every pair of an agent's format and a channel of another
 * format: the second upstream call must carry the reasoning artifact the first upstream answer issued, byte
 * for byte (the mock refuses the turn otherwise, as the real servers do), and the same thinking settings.
 */
type Channel = UpstreamWire;
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
  const gw = threeChannelsOn(startReasoningMock, MODEL, {
    anthropic: 'claude-sonnet-4-5',
    responses: 'gpt-5',
    gemini: 'gemini-2.5-flash',
  });

  for (const client of CLIENTS)
    for (const channel of CHANNELS.filter((c) => c !== client))
      for (const stream of [false, true])
        it(`${client} client on a ${channel} channel (${stream ? 'stream' : 'JSON'})`, async () => {
          const before = gw.mock.requests.length;
          const text = await toolLoop(client, gw.server.url, gw.apiKey, MODEL[channel], stream);
          expect(text).toContain('18C');
          const calls = gw.mock.requests.slice(before).filter((r) => PATH[channel].test(r.path));
          expect(calls).toHaveLength(2);
          const [first, second] = calls.map((c) => c.body);
          expect(thinkingOf(channel, second)).toEqual(thinkingOf(channel, first));
          expect(thinkingOf(channel, first)).toBeTruthy();
          if (channel === 'anthropic') {
            const issued = gw.mock.issued.anthropic.at(-1);
            const assistant = second.messages.find((m: any) => m.role === 'assistant');
            expect(assistant.content.slice(0, 2)).toEqual([
              { type: 'thinking', thinking: issued?.thinking, signature: issued?.signature },
              { type: 'redacted_thinking', data: issued?.redacted },
            ]);
            // The call ids are the upstream's own again (a chat client's carried the envelope).
            expect(assistant.content[2].id).toMatch(/^toolu_[0-9a-f]{16}$/);
          } else if (channel === 'responses') {
            const reasoning = second.input.find((i: any) => i.type === 'reasoning');
            expect(reasoning.encrypted_content).toBe(gw.mock.issued.responses.at(-1));
            expect(reasoning.summary[0].text).toContain('call the tool');
            // The reasoning item keeps the id the upstream gave it.
            expect(reasoning.id).toBe(gw.mock.issued.responseItems.at(-1));
            const call = second.input.find((i: any) => i.type === 'function_call');
            expect(call.call_id).toMatch(/^call_[0-9a-f]{12}$/);
          } else {
            const model = second.contents.find((c: any) => c.role === 'model');
            const call = model.parts.find((p: any) => p.functionCall);
            expect(call.thoughtSignature).toBe(gw.mock.issued.gemini.at(-1));
          }
        });

  it('drops an envelope that comes back to a channel of another format, and one that was tampered with', async () => {
    const client = new Anthropic({ apiKey: gw.apiKey, baseURL: gw.server.url, maxRetries: 0 });
    const body = {
      max_tokens: 16384,
      thinking: { type: 'enabled' as const, budget_tokens: 4096 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }],
    };
    const ask: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
    const first = await client.messages.create({ ...body, model: MODEL.responses, messages: [ask] });
    const thinking = first.content.find((b) => b.type === 'thinking');
    const call = first.content.find((b) => b.type === 'tool_use');
    if (thinking?.type !== 'thinking' || call?.type !== 'tool_use')
      throw new Error('no thinking and tool_use');
    const raw = Buffer.from(thinking.signature, 'base64');
    raw[raw.length - 1] ^= 1;
    const tampered = { ...thinking, signature: raw.toString('base64') };
    for (const [model, block] of [
      [MODEL.anthropic, thinking],
      [MODEL.gemini, thinking],
      [MODEL.responses, tampered],
    ] as const) {
      const before = gw.mock.requests.length;
      // With the reasoning dropped, the Gemini and Responses mocks refuse the turn (stricter than the real ones,
      // which take Google's skip value and a call without its reasoning); Anthropic's goes on without thinking.
      const second = await client.messages
        .create({
          ...body,
          model,
          messages: [
            ask,
            { role: 'assistant', content: [block, call] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18C' }] },
          ],
        })
        .catch((e) => (model === MODEL.anthropic ? Promise.reject(e) : null));
      if (model === MODEL.anthropic) expect(second?.content.length).toBeGreaterThan(0);
      const sent = gw.mock.requests.slice(before).map((r) => JSON.stringify(r.body));
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toContain(block.signature);
      expect(sent[0]).not.toContain(gw.mock.issued.responses.at(-1));
    }
  });
});
