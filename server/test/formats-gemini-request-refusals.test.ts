import { describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/relay-error.ts';
import { decode, modelTurn, user } from './support/gemini-codec.ts';

describe('gemini codec: request decoding', () => {
  it.each([
    [{}, '* GenerateContentRequest.contents: contents is not specified'],
    [{ contents: [] }, 'contents is not specified'],
    [{ contents: 'hi' }, "Invalid value at 'contents'"],
    [{ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'Please use a valid role: user, model.'],
    [{ contents: [{ role: 'user', parts: [] }] }, 'contents[0].parts: contents.parts must not be empty.'],
    [{ contents: [{ role: 'user' }] }, 'contents.parts must not be empty.'],
    [
      { contents: [user({})] },
      "contents[0].parts[0].data: required oneof field 'data' must have one initialized field",
    ],
    [{ contents: [user({ text: 5 })] }, 'Invalid value at \'contents[0].parts[0].text\' (TYPE_STRING), "5"'],
    [
      { contents: [user({ inlineData: { mimeType: 'image/png', data: 'not base64!' } })] },
      'Base64 decoding failed',
    ],
    [{ contents: [user({ inlineData: { data: 'AAAA' } })] }, 'inline_data.mime_type: Missing mime_type.'],
    [
      { contents: [modelTurn({ functionCall: { args: {} } })] },
      'parts[0].function_call.name: Name cannot be empty.',
    ],
    [
      { contents: [modelTurn({ functionCall: { name: 'f', args: [1] } })] },
      "Invalid value at 'contents[0].parts[0].function_call.args'",
    ],
    [{ contents: [user({ functionCall: { name: 'f' } })] }, 'must be in a model turn'],
    [{ contents: [modelTurn({ functionResponse: { name: 'f' } })] }, 'must be in a user turn'],
    [
      { contents: [user({ text: 'x' })], generationConfig: { temperature: 'hot' } },
      'Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { temperature: 3 } },
      'temperature must be in the range [0, 2]',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { maxOutputTokens: 1.5 } },
      "'generation_config.max_output_tokens' (TYPE_INT32)",
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { candidateCount: 9 } },
      'candidate_count must be in the range [1, 8]',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { stopSequences: 'END' } },
      "'generation_config.stop_sequences'",
    ],
    [
      {
        contents: [user({ text: 'x' })],
        generationConfig: { thinkingConfig: { thinkingBudget: 10, thinkingLevel: 'LOW' } },
      },
      'You can only set only one of thinking budget and thinking level.',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { thinkingConfig: { thinkingLevel: 'extreme' } } },
      'generation_config.thinking_config.thinking_level',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { responseMimeType: 'text/html' } },
      'allowed mimetypes are',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { responseSchema: { type: 'STRING' } } },
      'response_mime_type must be application/json',
    ],
    [
      { contents: [user({ text: 'x' })], tools: [{ functionDeclarations: [{ name: '1bad name' }] }] },
      'tools[0].function_declarations[0].name: Invalid function name.',
    ],
    [{ contents: [user({ text: 'x' })], tools: { functionDeclarations: [] } }, "Invalid value at 'tools'"],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: {}, parametersJsonSchema: {} }] }],
      },
      'cannot both be set',
    ],
    [
      { contents: [user({ text: 'x' })], toolConfig: { functionCallingConfig: { mode: 'ANY' } } },
      'Function calling config is set without function_declarations.',
    ],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } },
      },
      'tool_config.function_calling_config.mode',
    ],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
      },
      'not a declared function',
    ],
    [{ contents: [user({ text: 'x' })], systemInstruction: 5 }, "Invalid value at 'system_instruction'"],
    [{ contents: [user({ text: 'x' })], safetySettings: ['x'] }, "Invalid value at 'safety_settings[0]'"],
  ])('400 for %j', (body, message) => {
    const err = (() => {
      try {
        decode(body as Record<string, unknown>);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(400);
    expect((err as RelayError).message).toContain(message);
  });

  it('never crashes on odd input: every shape is a hub request or a 400', () => {
    const odd: unknown[] = [
      null,
      0,
      'x',
      [],
      {},
      [null],
      { parts: null },
      { text: null },
      { role: null, parts: [{}] },
    ];
    for (const a of odd)
      for (const b of odd) {
        const bodies = [
          { contents: a },
          { contents: [a] },
          { contents: [{ parts: [a] }] },
          { contents: [{ role: 'model', parts: [{ functionCall: a }] }] },
          { contents: [{ parts: [{ functionResponse: { name: 'f', response: a } }] }] },
          { contents: [{ parts: [{ text: 'x' }] }], generationConfig: a, tools: [b] },
          { contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [a] }], toolConfig: b },
          {
            contents: [{ parts: [{ text: 'x' }] }],
            systemInstruction: a,
            generationConfig: { thinkingConfig: b },
          },
        ];
        for (const body of bodies) {
          try {
            decode(body as Record<string, unknown>);
          } catch (e) {
            expect(e).toBeInstanceOf(RelayError);
            expect((e as RelayError).status).toBe(400);
          }
        }
      }
    expect(() => decode(null as unknown as Record<string, unknown>)).toThrow(RelayError);
  });
});
