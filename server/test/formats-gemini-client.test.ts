import { ApiError, FunctionCallingConfigMode, ThinkingLevel } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import type { HubResponse } from '../src/relay/formats/hub.ts';
import { fixtureChunks } from './support/fixtures.ts';
import { ctx, DIR, decodeLines, geminiClient, usage } from './support/gemini-codec.ts';
import { claudeAnswerHead, signedThinking, twoCalls } from './support/hub-answers.ts';

describe('gemini codec: encoder output through the official @google/genai client', () => {
  const { sdk, upstream, model, contents, serveJson, serveStream, streamed, start } = geminiClient();

  it('a plain answer with thinking, text and two tool calls (one with a Gemini signature)', async () => {
    const hub: HubResponse = {
      ...claudeAnswerHead(),
      parts: [
        signedThinking(),
        { type: 'text', text: 'Checking both.' },
        { type: 'refusal', text: '' },
        ...twoCalls(),
      ],
      stop: 'tool_calls',
      usage: usage(100, 40, 60, 10, 20),
    };
    serveJson(geminiCodec.encodeResponse(hub, ctx));
    const got = await sdk.client.models.generateContent({ model, contents });
    expect(upstream.seen.at(-1)?.url).toMatch(new RegExp(`^/v1(beta)?/models/${model}:generateContent$`));
    expect(got.responseId).toBe('msg_01abc');
    expect(got.modelVersion).toBe('claude-sonnet-4-5');
    expect(got.text).toBe('Checking both.');
    expect(got.candidates?.[0].finishReason).toBe('STOP');
    expect(got.candidates?.[0].content?.parts?.[0]).toEqual({ text: 'Let me look.', thought: true });
    expect(got.functionCalls).toEqual([
      { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } },
      { id: 'fc_2', name: 'time', args: {} },
    ]);
    expect(got.candidates?.[0].content?.parts?.[3].thoughtSignature).toBe('gem-sig');
    expect(got.usageMetadata).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 30,
      thoughtsTokenCount: 10,
      cachedContentTokenCount: 60,
      totalTokenCount: 140,
    });
    expect(JSON.stringify(got)).not.toContain('anthropic-sig');
  });

  it('a blocked prompt reaches the client as promptFeedback with no text', async () => {
    serveJson(
      geminiCodec.encodeResponse(
        {
          id: 'r',
          model: 'm',
          created: 1,
          parts: [],
          stop: 'content_filter',
          usage: usage(3, 0),
          promptBlocked: 'SAFETY',
        },
        ctx,
      ),
    );
    const got = await sdk.client.models.generateContent({ model, contents });
    expect(got.promptFeedback?.blockReason).toBe('SAFETY');
    expect(got.candidates).toBeUndefined();
    expect(got.text).toBeUndefined();
  });

  it('streamed thinking then text', async () => {
    serveStream([
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'text', text: '4' },
      { type: 'text', text: '.' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(10, 5, 0, 3) },
    ]);
    const chunks = await streamed();
    expect(upstream.seen.at(-1)?.url).toMatch(
      new RegExp(`^/v1(beta)?/models/${model}:streamGenerateContent\\?alt=sse$`),
    );
    const parts = chunks.flatMap((c) => c.candidates?.[0].content?.parts ?? []);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(''),
    ).toBe('Two plus two.');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('4.');
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(chunks.at(-1).usageMetadata).toMatchObject({
      promptTokenCount: 10,
      candidatesTokenCount: 2,
      thoughtsTokenCount: 3,
    });
    expect(chunks.every((c) => c.responseId === 'msg_01abc')).toBe(true);
  });

  it('streamed text then two parallel tool calls with split args: whole function calls', async () => {
    serveStream([
      start,
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'call_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_call', index: 1, id: 'call_b', name: 'weather' },
      { type: 'tool_args', index: 1, delta: '{"city":"Rome"}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9) },
    ]);
    const chunks = await streamed();
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([
      { id: 'call_a', name: 'weather', args: { city: 'Paris' } },
      { id: 'call_b', name: 'weather', args: { city: 'Rome' } },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('the recorded Vertex streamed-args answer, re-encoded, reaches the client as two whole calls', async () => {
    serveStream(decodeLines(fixtureChunks(`${DIR}vertex-streamed-function-call-args.chunks.txt`)));
    const chunks = await streamed();
    expect(chunks.flatMap((c) => c.functionCalls ?? []).map((c: any) => c.args)).toEqual([
      { location: 'Boston' },
      { location: 'San Francisco' },
    ]);
    expect(chunks.at(-1).usageMetadata).toMatchObject({
      promptTokenCount: 26,
      candidatesTokenCount: 23,
      thoughtsTokenCount: 132,
    });
  });

  it('an error mid-stream reaches the client as an ApiError with its status and message', async () => {
    serveStream([
      start,
      { type: 'text', text: 'partial' },
      { type: 'error', error: { status: 503, kind: 'overloaded', message: 'Overloaded' } },
    ]);
    const err = await streamed().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.message).toContain('Overloaded');
    expect(err.message).toContain('UNAVAILABLE');
  });

  it.each([
    ['invalid_request', 400, 'INVALID_ARGUMENT'],
    ['authentication', 401, 'UNAUTHENTICATED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['rate_limit', 429, 'RESOURCE_EXHAUSTED'],
    ['quota', 429, 'RESOURCE_EXHAUSTED'],
    ['server', 500, 'INTERNAL'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['timeout', 504, 'DEADLINE_EXCEEDED'],
  ] as const)('error kind %s reaches the client as %i %s, and decodes back', async (kind, status, name) => {
    const out = geminiCodec.encodeError({ status: 0, kind, message: 'went wrong' }, 'req-9');
    expect(out).toEqual({
      status,
      body: { error: { code: status, message: 'went wrong (request id: req-9)', status: name } },
    });
    serveJson(out.body, out.status);
    const err = await sdk.client.models.generateContent({ model, contents }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(JSON.parse(err.message)).toEqual(out.body);
    expect(geminiCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(
      kind === 'quota' ? 'rate_limit' : kind,
    );
  });

  it("the client's own request body decodes to the hub", async () => {
    serveJson(
      geminiCodec.encodeResponse(
        { id: 'r', model, created: 1, parts: [], stop: 'end', usage: usage(1, 1) },
        ctx,
      ),
    );
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
    await sdk.client.models.generateContent({
      model,
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather in Paris and Rome?' },
            { inlineData: { mimeType: 'image/png', data: png } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Planning.', thought: true },
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
            { functionCall: { name: 'weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'weather', response: { output: 'sunny' } } },
            { functionResponse: { name: 'weather', response: { temp: 21, sky: 'clear' } } },
          ],
        },
      ],
      config: {
        systemInstruction: 'Be brief.',
        tools: [
          {
            functionDeclarations: [
              {
                name: 'weather',
                description: 'Weather for a city',
                parametersJsonSchema: {
                  type: 'object',
                  properties: { city: { type: 'string' } },
                  required: ['city'],
                },
              },
            ],
          },
          { googleSearch: {} },
        ],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['weather'] },
        },
        thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.LOW },
        maxOutputTokens: 256,
        temperature: 0.3,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        seed: 11,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as any, threshold: 'BLOCK_NONE' as any }],
      },
    });
    const body = upstream.seen.at(-1)?.body;
    expect(body.model).toBeUndefined();
    const req = geminiCodec.decodeRequest(body, { ...ctx, model: 'routed-model' });
    expect(req).toMatchObject({
      model: 'routed-model',
      stream: false,
      system: [{ type: 'text', text: 'Be brief.' }],
      tools: [
        {
          name: 'weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      serverTools: [{ type: 'opaque', format: 'gemini', value: { googleSearch: {} } }],
      toolChoice: { type: 'tool', name: 'weather' },
      thinking: { enabled: true, effort: 'low', includeThoughts: true },
      maxTokens: 256,
      temperature: 0.3,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      seed: 11,
      responseFormat: {
        type: 'json_schema',
        name: 'response',
        schema: { type: 'object', properties: { answer: { type: 'string' } } },
      },
    });
    const [user, assistant, results] = req.messages;
    expect(user.parts).toEqual([
      { type: 'text', text: 'Weather in Paris and Rome?' },
      { type: 'image', data: png, mediaType: 'image/png' },
    ]);
    expect(assistant.parts).toEqual([
      { type: 'thinking', text: 'Planning.' },
      {
        type: 'tool_call',
        id: 'call_1_1',
        name: 'weather',
        args: '{"city":"Paris"}',
        signature: 'c2lnLTE=',
        signatureFormat: 'gemini',
      },
      { type: 'tool_call', id: 'call_1_2', name: 'weather', args: '{"city":"Rome"}' },
    ]);
    expect(results.parts).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_1',
        name: 'weather',
        content: [{ type: 'text', text: 'sunny' }],
      },
      {
        type: 'tool_result',
        callId: 'call_1_2',
        name: 'weather',
        content: [{ type: 'text', text: '{"temp":21,"sky":"clear"}' }],
      },
    ]);
  });
});
