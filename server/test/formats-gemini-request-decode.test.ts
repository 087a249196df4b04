import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import { decode, modelTurn, streamCtx, user } from './support/gemini-codec.ts';

describe('gemini codec: request decoding', () => {
  it('model from the URL, stream from the method; snake_case field names read too', () => {
    const req = decode(
      {
        contents: [
          { parts: [{ text: 'hi' }, { inline_data: { mime_type: 'application/pdf', data: 'JVBERi0=' } }] },
        ],
        system_instruction: { parts: [{ text: 'Sys A' }, { text: 'Sys B' }] },
        generation_config: {
          max_output_tokens: 50,
          candidate_count: 2,
          presence_penalty: 0.5,
          frequency_penalty: -0.5,
          thinking_config: { thinking_budget: 0 },
          response_mime_type: 'application/json',
        },
        tools: [{ function_declarations: [{ name: 'f' }] }],
        tool_config: { function_calling_config: { mode: 'none' } },
        cached_content: 'cachedContents/abc',
      },
      { ...streamCtx, model: 'gemini-2.5-pro' },
    );
    expect(req).toEqual({
      model: 'gemini-2.5-pro',
      stream: true,
      system: [
        { type: 'text', text: 'Sys A' },
        { type: 'text', text: 'Sys B' },
      ],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'hi' },
            { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf' },
          ],
        },
      ],
      tools: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
      toolChoice: { type: 'none' },
      maxTokens: 50,
      n: 2,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      thinking: { enabled: false },
      responseFormat: { type: 'json_object' },
      cachedContent: 'cachedContents/abc',
    });
  });

  it('Gemini Schema parameters and responseSchema are read as JSON Schema', () => {
    const req = decode({
      contents: [user({ text: 'x' })],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'search',
              parameters: {
                type: 'OBJECT',
                properties: {
                  q: { type: 'STRING', description: 'query' },
                  limit: { type: 'INTEGER', nullable: true },
                  tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] } },
                },
                required: ['q'],
                propertyOrdering: ['q', 'limit', 'tags'],
              },
            },
          ],
        },
      ],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'ARRAY', items: { type: 'NUMBER' } },
      },
    });
    expect(req.tools[0].parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'query' },
        limit: { type: ['integer', 'null'] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      },
      required: ['q'],
    });
    expect(req.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'array', items: { type: 'number' } },
    });
  });

  it.each([
    [
      { thinkingBudget: 2048, includeThoughts: true },
      { enabled: true, budgetTokens: 2048, includeThoughts: true },
    ],
    [{ thinkingBudget: -1 }, { enabled: true }],
    [{ thinkingBudget: 0 }, { enabled: false }],
    [{ thinkingLevel: 'high' }, { enabled: true, effort: 'high' }],
    [{ thinkingLevel: 'MINIMAL' }, { enabled: true, effort: 'minimal' }],
    [{ includeThoughts: true }, { enabled: true, includeThoughts: true }],
    [{ includeThoughts: false }, undefined],
  ])('thinkingConfig %j -> %j', (tc, thinking) => {
    expect(
      decode({ contents: [user({ text: 'x' })], generationConfig: { thinkingConfig: tc } }).thinking,
    ).toEqual(thinking);
  });

  it.each([
    [{ mode: 'AUTO' }, { type: 'auto' }],
    [{ mode: 'VALIDATED' }, { type: 'auto' }],
    [{ mode: 'NONE' }, { type: 'none' }],
    [{ mode: 'ANY' }, { type: 'required' }],
    [{ mode: 'ANY', allowedFunctionNames: ['f', 'g'] }, { type: 'required' }],
    [
      { mode: 'ANY', allowedFunctionNames: ['g'] },
      { type: 'tool', name: 'g' },
    ],
  ])('functionCallingConfig %j -> %j', (fcc, choice) => {
    const req = decode({
      contents: [user({ text: 'x' })],
      tools: [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }],
      toolConfig: { functionCallingConfig: fcc },
    });
    expect(req.toolChoice).toEqual(choice);
  });

  it('function calls without ids get distinct stable ids; responses match by id, else by name in order', () => {
    const body = {
      contents: [
        user({ text: 'go' }),
        modelTurn(
          { functionCall: { name: 'read', args: { path: 'a' } } },
          { functionCall: { name: 'read', args: { path: 'b' } } },
          { functionCall: { id: 'given-1', name: 'write', args: {} } },
        ),
        user(
          { functionResponse: { id: 'given-1', name: 'write', response: { result: 'ok' } } },
          { functionResponse: { name: 'read', response: { content: 'A' } } },
          { functionResponse: { name: 'read', response: { error: 'no such file' } } },
        ),
      ],
    };
    const first = decode(body);
    const calls = first.messages[1].parts as Array<{ id: string }>;
    expect(calls.map((c) => c.id)).toEqual(['call_1_0', 'call_1_1', 'given-1']);
    expect(first.messages[2].parts).toEqual([
      { type: 'tool_result', callId: 'given-1', name: 'write', content: [{ type: 'text', text: 'ok' }] },
      { type: 'tool_result', callId: 'call_1_0', name: 'read', content: [{ type: 'text', text: 'A' }] },
      {
        type: 'tool_result',
        callId: 'call_1_1',
        name: 'read',
        content: [{ type: 'text', text: 'no such file' }],
        isError: true,
      },
    ]);
    // Stable across requests, so an upstream's prompt cache still matches the history.
    expect(decode(body)).toEqual(first);
  });

  it('keeps parts that carry only a signature, signatures on text, and packed ids with their signature', () => {
    const packed = packCallId('call_x', 'gem-sig');
    const req = decode({
      contents: [
        user({ text: 'q' }),
        modelTurn(
          { text: 'Answer.', thoughtSignature: 'c2lnLUE=' },
          { thoughtSignature: 'c2lnLUI=' },
          { text: '', thought: true, thoughtSignature: 'c2lnLUM=' },
          { functionCall: { id: packed, name: 'f', args: {} } },
        ),
        user({ functionResponse: { id: packed, name: 'f', response: {} } }),
      ],
    });
    expect(req.messages[1].parts).toEqual([
      { type: 'text', text: 'Answer.' },
      { type: 'thinking', text: '', signature: 'c2lnLUE=', signatureFormat: 'gemini' },
      { type: 'thinking', text: '', signature: 'c2lnLUI=', signatureFormat: 'gemini' },
      { type: 'thinking', text: '', signature: 'c2lnLUM=', signatureFormat: 'gemini' },
      {
        type: 'tool_call',
        id: packed,
        name: 'f',
        args: '{}',
        signature: 'gem-sig',
        signatureFormat: 'gemini',
      },
    ]);
    expect(req.messages[2].parts).toEqual([{ type: 'tool_result', callId: packed, name: 'f', content: [] }]);
  });

  it('files by URI: public URLs as URLs, Files API and gs:// URIs as Gemini opaque parts', () => {
    const files = {
      fileData: {
        mimeType: 'video/mp4',
        fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
      },
    };
    const gcs = { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } };
    const req = decode({
      contents: [
        user(
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { fileData: { fileUri: 'https://example.com/dog.png' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
          files,
          gcs,
        ),
      ],
    });
    expect(req.messages[0].parts).toEqual([
      { type: 'image', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' },
      { type: 'image', url: 'https://example.com/dog.png' },
      { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
      { type: 'opaque', format: 'gemini', value: files },
      { type: 'opaque', format: 'gemini', value: gcs },
    ]);
  });

  it('a functionResponse with multimodal parts keeps its images; consecutive turns of a role merge', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9, 9]).toString('base64');
    const req = decode({
      contents: [
        user({ text: 'shot' }),
        modelTurn({ functionCall: { name: 'screenshot' } }),
        {
          role: 'function',
          parts: [
            {
              functionResponse: {
                name: 'screenshot',
                response: { output: 'taken' },
                parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
              },
            },
          ],
        },
        user({ text: 'and?' }),
      ],
    });
    expect(req.messages).toHaveLength(3);
    expect(req.messages[2].parts).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_0',
        name: 'screenshot',
        content: [
          { type: 'text', text: 'taken' },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      { type: 'text', text: 'and?' },
    ]);
  });
});
