import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import { ctx } from './support/gemini-codec.ts';

describe('gemini codec: request encoding for a Gemini upstream', () => {
  it('a Gemini request survives decode then encode', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [
            { text: 'plan', thought: true, thoughtSignature: 'c2lnLTA=' },
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temp: 20 } } }] },
        { role: 'model', parts: [{ text: 'It is 20.', thoughtSignature: 'c2lnLTI=' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 64,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    };
    const out = geminiCodec.encodeRequest(geminiCodec.decodeRequest(body, ctx), ctx) as any;
    const withoutIds = out.contents.map((c: any) => ({
      ...c,
      parts: c.parts.map((p: any) =>
        p.functionCall
          ? { ...p, functionCall: { name: p.functionCall.name, args: p.functionCall.args } }
          : p.functionResponse
            ? { functionResponse: { name: p.functionResponse.name, response: p.functionResponse.response } }
            : p,
      ),
    }));
    expect(withoutIds).toEqual(
      body.contents.map((c) => ({
        ...c,
        parts: c.parts.map((p: any) => ({ ...p, ...(p.thought ? { thought: true } : {}) })),
      })),
    );
    // The call and its response carry the same id.
    expect(out.contents[2].parts[0].functionResponse.id).toBe(out.contents[1].parts[1].functionCall.id);
    expect(out.systemInstruction).toEqual(body.systemInstruction);
    expect(out.tools).toEqual(body.tools);
    expect(out.generationConfig).toEqual(body.generationConfig);
  });

  it('an OpenAI chat client talking to a Gemini upstream: packed ids give signatures back, names come from the calls', () => {
    const hub = chatCodec.decodeRequest(
      {
        model: 'gemini-3-pro-preview',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: packCallId('call_9', 'real-sig'),
                type: 'function',
                function: { name: 'weather', arguments: '{}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: packCallId('call_9', 'real-sig'), content: 'sunny' },
        ],
      },
      ctx,
    );
    const body = geminiCodec.encodeRequest(hub, ctx) as any;
    expect(body.contents[1].parts).toEqual([
      { functionCall: { id: 'call_9', name: 'weather', args: {} }, thoughtSignature: 'real-sig' },
    ]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { id: 'call_9', name: 'weather', response: { result: 'sunny' } } },
    ]);
  });
});
