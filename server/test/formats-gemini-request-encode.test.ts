import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import type { HubRequest } from '../src/relay/formats/hub.ts';
import { encode, png } from './support/gemini-codec.ts';

describe('gemini codec: request encoding for a Gemini upstream', () => {
  it('contents alternate user/model; tool results become named functionResponses, images after them', () => {
    const body = encode({
      stream: true,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use tools.' },
      ],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        { role: 'user', parts: [{ type: 'image', url: 'https://example.com/a.webp' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'toolu_1', name: 'weather', args: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'toolu_2', name: 'shot', args: '' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Here.' },
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
            {
              type: 'tool_result',
              callId: 'toolu_2',
              content: [
                { type: 'text', text: '{"ok":true}' },
                { type: 'image', data: png, mediaType: 'image/png' },
              ],
            },
            {
              type: 'tool_result',
              callId: 'toolu_3',
              name: 'other',
              content: [{ type: 'text', text: 'boom' }],
              isError: true,
            },
          ],
        },
      ],
    });
    expect(body.model).toBeUndefined();
    expect(body.stream).toBeUndefined();
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use tools.' }] });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Weather?' },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/a.webp' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } } },
          { functionCall: { id: 'toolu_2', name: 'shot', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'toolu_1', name: 'weather', response: { result: 'sunny' } } },
          { functionResponse: { id: 'toolu_2', name: 'shot', response: { ok: true } } },
          { functionResponse: { id: 'toolu_3', name: 'other', response: { error: 'boom' } } },
          { inlineData: { mimeType: 'image/png', data: png } },
          { text: 'Here.' },
        ],
      },
    ]);
  });

  it('thinking is replayed only with a Gemini signature; call signatures restored; foreign opaque parts dropped', () => {
    const body = encode({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'Claude thought', signature: 'anth', signatureFormat: 'anthropic' },
            { type: 'thinking', text: '', redacted: 'abc' },
            { type: 'thinking', text: 'unsigned summary' },
            { type: 'thinking', text: 'gemini thought', signature: 'g-1', signatureFormat: 'gemini' },
            { type: 'text', text: 'Answer.' },
            { type: 'thinking', text: '', signature: 'g-2', signatureFormat: 'gemini' },
            { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
            { type: 'opaque', format: 'gemini', value: { executableCode: { code: 'print(1)' } } },
            {
              type: 'tool_call',
              id: 'c1',
              name: 'f',
              args: '{}',
              signature: 'g-3',
              signatureFormat: 'gemini',
            },
            { type: 'tool_call', id: packCallId('c2', 'g-4'), name: 'f', args: '{}' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_result', callId: packCallId('c2', 'g-4'), content: [{ type: 'text', text: 'ok' }] },
          ],
        },
      ],
    });
    expect(JSON.stringify(body)).not.toContain('anth');
    expect(JSON.stringify(body)).not.toContain('summary');
    expect(body.contents[1].parts).toEqual([
      { text: 'gemini thought', thought: true, thoughtSignature: 'g-1' },
      { text: 'Answer.', thoughtSignature: 'g-2' },
      { executableCode: { code: 'print(1)' } },
      { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'g-3' },
      { functionCall: { id: 'c2', name: 'f', args: {} }, thoughtSignature: 'g-4' },
    ]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { id: 'c2', name: 'f', response: { result: 'ok' } } },
    ]);
  });

  it("on Gemini 3 a model turn's first unsigned call gets Google's stand-in signature; not before 3", () => {
    const messages: HubRequest['messages'] = [
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'toolu_1', name: 'f', args: '{}' },
          { type: 'tool_call', id: 'toolu_2', name: 'f', args: '{}' },
        ],
      },
    ];
    const g3 = encode({ model: 'gemini-3-pro-preview', messages });
    expect(g3.contents[1].parts.map((p: any) => p.thoughtSignature)).toEqual([
      'skip_thought_signature_validator',
      undefined,
    ]);
    expect(JSON.stringify(encode({ messages }))).not.toContain('skip_thought');
  });

  it('tools with cleaned schemas, tool choice, Gemini server tools kept, others dropped', () => {
    const body = encode({
      tools: [
        {
          name: 'edit',
          description: 'Edit a file',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            additionalProperties: false,
            properties: {
              path: { type: 'string', format: 'uri', default: 'a.txt' },
              mode: { const: 'replace' },
              count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
              tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, examples: [['x']] },
              meta: {
                type: ['object', 'null'],
                propertyNames: { pattern: '^a' },
                patternProperties: { '^a': {} },
              },
            },
            required: ['path', 'missing'],
          },
        },
        { name: 'ping', parameters: { type: 'object', properties: {} } },
      ],
      serverTools: [
        { type: 'opaque', format: 'gemini', value: { googleSearch: {} } },
        { type: 'opaque', format: 'anthropic', value: { type: 'web_search_20250305', name: 'web_search' } },
      ],
      toolChoice: { type: 'tool', name: 'edit' },
      parallelToolCalls: false,
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'edit',
            description: 'Edit a file',
            parameters: {
              type: 'object',
              properties: {
                path: { type: 'string' },
                mode: { type: 'string', enum: ['replace'] },
                count: { type: 'integer', minimum: 0, maximum: 10 },
                tags: { type: 'array', items: { type: 'string' } },
                meta: { type: 'object', nullable: true },
              },
              required: ['path'],
            },
          },
          { name: 'ping' },
        ],
      },
      { googleSearch: {} },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['edit'] },
    });
    expect(JSON.stringify(body)).not.toContain('parallel');
  });

  it.each([
    [{ type: 'auto' }, { mode: 'AUTO' }],
    [{ type: 'none' }, { mode: 'NONE' }],
    [{ type: 'required' }, { mode: 'ANY' }],
  ] as const)('tool choice %j -> %j', (choice, fcc) => {
    const body = encode({ tools: [{ name: 'f', parameters: { type: 'object' } }], toolChoice: choice });
    expect(body.toolConfig).toEqual({ functionCallingConfig: fcc });
  });

  it('generation config, response format and cached content', () => {
    const body = encode({
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 20,
      stop: ['a', 'b', 'c', 'd', 'e', 'f'],
      n: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseFormat: {
        type: 'json_schema',
        name: 'out',
        schema: { type: 'object', properties: { a: { type: 'string' } } },
      },
      cachedContent: 'cachedContents/xyz',
      user: 'u-1',
    });
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 20,
      stopSequences: ['a', 'b', 'c', 'd', 'e'],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(body.cachedContent).toBe('cachedContents/xyz');
    expect(encode({ responseFormat: { type: 'json_object' } }).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect(encode({ n: 1, responseFormat: { type: 'text' } }).generationConfig).toBeUndefined();
  });

  it.each([
    [
      'gemini-2.5-flash',
      { enabled: true, budgetTokens: 3000 },
      { includeThoughts: true, thinkingBudget: 3000 },
    ],
    [
      'gemini-2.5-flash',
      { enabled: true, effort: 'medium' },
      { includeThoughts: true, thinkingBudget: 8192 },
    ],
    [
      'gemini-2.5-flash',
      { enabled: true, effort: 'low', includeThoughts: false },
      { includeThoughts: false, thinkingBudget: 1024 },
    ],
    ['gemini-2.5-flash', { enabled: true }, { includeThoughts: true }],
    ['gemini-2.5-flash', { enabled: false }, { includeThoughts: false, thinkingBudget: 0 }],
    ['gemini-2.5-pro', { enabled: false }, { includeThoughts: false, thinkingBudget: 128 }],
    [
      'gemini-3-pro-preview',
      { enabled: true, effort: 'low' },
      { includeThoughts: true, thinkingLevel: 'low' },
    ],
    [
      'gemini-3-pro-preview',
      { enabled: true, effort: 'medium' },
      { includeThoughts: true, thinkingLevel: 'high' },
    ],
    [
      'gemini-3-pro-preview',
      { enabled: true, budgetTokens: 4096 },
      { includeThoughts: true, thinkingBudget: 4096 },
    ],
    ['gemini-3-flash-preview', { enabled: false }, { includeThoughts: false, thinkingLevel: 'low' }],
  ] as const)('%s thinking %j -> %j', (model, thinking, tc) => {
    expect(encode({ model, thinking }).generationConfig.thinkingConfig).toEqual(tc);
  });
});
