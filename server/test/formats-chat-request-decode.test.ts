import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { ctx } from './support/chat-codec.ts';

describe('chat codec: request decoding', () => {
  const decode = (body: Record<string, unknown>) => chatCodec.decodeRequest(body, ctx);

  it('reads every field a chat client sends', () => {
    const img = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
    const req = decode({
      model: 'claude-sonnet-4-5',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'developer',
          content: [{ type: 'text', text: 'Use tools.', cache_control: { type: 'ephemeral' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/jpg;base64,${img}`, detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I should call both.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '12:00' }] },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'You are welcome.', refusal: null },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
        },
        { type: 'function', name: 'time', parameters: { type: 'object', properties: {} } },
        { type: 'custom', custom: { name: 'apply_patch', description: 'Patch files' } },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
      max_tokens: 100,
      max_completion_tokens: 200,
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      n: 1,
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: -0.1,
      reasoning_effort: 'low',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
      },
      user: 'u-1',
    });
    expect(req).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use tools.', cache: { type: 'ephemeral' } },
      ],
      toolChoice: { type: 'tool', name: 'weather' },
      parallelToolCalls: false,
      maxTokens: 200,
      temperature: 0.5,
      topP: 0.9,
      stop: ['END'],
      n: 1,
      seed: 7,
      frequencyPenalty: 0.1,
      presencePenalty: -0.1,
      thinking: { enabled: true, effort: 'low' },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      user: 'u-1',
    });
    expect(req.tools).toEqual([
      { name: 'weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
      { name: 'time', parameters: { type: 'object', properties: {} } },
      {
        name: 'apply_patch',
        description: 'Patch files',
        custom: true,
        parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
      },
    ]);
    expect(req.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', data: img, mediaType: 'image/png', detail: 'high' },
          { type: 'image', url: 'https://example.com/a.png' },
          { type: 'file', data: 'AAAA', mediaType: 'audio/mpeg' },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'I should call both.' },
          { type: 'tool_call', id: 'call_1', name: 'weather', args: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'call_2', name: 'time', args: '{}' },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_1',
            name: 'weather',
            content: [{ type: 'text', text: 'sunny' }],
          },
          { type: 'tool_result', callId: 'call_2', name: 'time', content: [{ type: 'text', text: '12:00' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'You are welcome.' }] },
    ]);
  });

  it('maps the legacy functions, function_call and function role', () => {
    const req = decode({
      model: 'm',
      functions: [{ name: 'lookup', parameters: { type: 'object' } }],
      function_call: { name: 'lookup' },
      messages: [
        { role: 'user', content: 'find x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(req.tools).toEqual([{ name: 'lookup', parameters: { type: 'object' } }]);
    expect(req.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    const call = req.messages[1].parts[0];
    expect(call).toMatchObject({ type: 'tool_call', name: 'lookup', args: '{"q":"x"}' });
    expect(req.messages[2].parts[0]).toMatchObject({
      type: 'tool_result',
      callId: (call as { id: string }).id,
      name: 'lookup',
      content: [{ type: 'text', text: 'found' }],
    });
  });

  it('keeps a packed Gemini id whole and also exposes its signature', () => {
    const id = packCallId('fc_1', 'sig-bytes');
    const req = decode({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: id, content: 'ok' },
      ],
    });
    expect(req.messages[0].parts[0]).toEqual({
      type: 'tool_call',
      id,
      name: 'f',
      args: '{}',
      signature: 'sig-bytes',
      signatureFormat: 'gemini',
    });
    expect(req.messages[1].parts[0]).toMatchObject({ callId: id, name: 'f' });
  });

  it.each([
    ['reasoning_effort none', { reasoning_effort: 'none' }, { enabled: false }],
    ['reasoning_effort xhigh', { reasoning_effort: 'xhigh' }, { enabled: true, effort: 'high' }],
  ])('%s', (_name, extra, thinking) => {
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...extra }).thinking).toEqual(
      thinking,
    );
  });

  const user = [{ role: 'user', content: 'hi' }];
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no model', { messages: user }, /model/],
    ['model not a string', { model: 5, messages: user }, /model/],
    ['no messages', { model: 'm' }, /messages/],
    ['empty messages', { model: 'm', messages: [] }, /messages/],
    ['a message that is not an object', { model: 'm', messages: ['hi'] }, /messages\[0\]/],
    ['an unknown role', { model: 'm', messages: [{ role: 'bot', content: 'x' }] }, /messages\[0\]\.role/],
    ['user content missing', { model: 'm', messages: [{ role: 'user' }] }, /messages\[0\]\.content/],
    [
      'user content a number',
      { model: 'm', messages: [{ role: 'user', content: 3 }] },
      /messages\[0\]\.content/,
    ],
    [
      'an unknown content part type',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] },
      /messages\[0\]\.content\[0\]\.type/,
    ],
    [
      'a text part without text',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 4 }] }] },
      /content\[0\]\.text/,
    ],
    [
      'an image in a system message',
      {
        model: 'm',
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] },
        ],
      },
      /only 'text'/,
    ],
    [
      'an image URL that is not http or data',
      {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] },
        ],
      },
      /http/,
    ],
    [
      'audio of an unknown format',
      {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'ogg' } }] },
        ],
      },
      /format/,
    ],
    [
      'a tool result for an unknown call id',
      { model: 'm', messages: [...user, { role: 'tool', tool_call_id: 'call_nope', content: 'x' }] },
      /call_nope/,
    ],
    [
      'a tool message without tool_call_id',
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      /tool_call_id/,
    ],
    [
      'a function message no function_call asked for',
      { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      /function_call/,
    ],
    [
      'an empty assistant message',
      { model: 'm', messages: [{ role: 'assistant', content: null }] },
      /assistant/,
    ],
    [
      'a tool call without id',
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f' } }] }],
      },
      /tool_calls\[0\]\.id/,
    ],
    [
      'a tool call of an unknown type',
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ id: 'a', type: 'web', function: { name: 'f' } }] }],
      },
      /tool_calls\[0\]\.type/,
    ],
    ['tools not an array', { model: 'm', messages: user, tools: {} }, /tools/],
    [
      'a tool without a name',
      { model: 'm', messages: user, tools: [{ type: 'function', function: {} }] },
      /tools\[0\]/,
    ],
    [
      'a tool of an unknown type',
      { model: 'm', messages: user, tools: [{ type: 'web_search' }] },
      /tools\[0\]\.type/,
    ],
    [
      'tool parameters that are not an object',
      { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
      /parameters/,
    ],
    ['an unknown tool_choice', { model: 'm', messages: user, tool_choice: 'any' }, /tool_choice/],
    ['temperature above 2', { model: 'm', messages: user, temperature: 3 }, /temperature/],
    ['top_p as a string', { model: 'm', messages: user, top_p: '1' }, /top_p/],
    ['max_tokens not an integer', { model: 'm', messages: user, max_tokens: 1.5 }, /max_tokens/],
    [
      'max_completion_tokens zero',
      { model: 'm', messages: user, max_completion_tokens: 0 },
      /max_completion_tokens/,
    ],
    ['n zero', { model: 'm', messages: user, n: 0 }, /'n'/],
    ['stop with a number', { model: 'm', messages: user, stop: ['a', 1] }, /stop/],
    ['stream not a boolean', { model: 'm', messages: user, stream: 'yes' }, /stream/],
    ['stream_options not an object', { model: 'm', messages: user, stream_options: true }, /stream_options/],
    [
      'an unknown reasoning_effort',
      { model: 'm', messages: user, reasoning_effort: 'huge' },
      /reasoning_effort/,
    ],
    [
      'an unknown response_format',
      { model: 'm', messages: user, response_format: { type: 'xml' } },
      /response_format/,
    ],
    [
      'a json_schema without a name',
      { model: 'm', messages: user, response_format: { type: 'json_schema', json_schema: {} } },
      /json_schema\.name/,
    ],
    [
      'a file part without data or id',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: {} }] }] },
      /file/,
    ],
  ];

  it.each(bad)('400 on %s', (_name, body, message) => {
    let err: unknown;
    try {
      decode(body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(400);
    expect((err as RelayError).message).toMatch(message);
  });
});
