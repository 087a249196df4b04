import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { ctx } from './support/responses-codec.ts';

describe('responses codec: request decoding (Codex CLI, Agents SDK)', () => {
  const decode = (body: Record<string, unknown>) => responsesCodec.decodeRequest(body, ctx);

  it.each([
    [
      'a string input',
      { model: 'm', input: 'hi' },
      [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    ],
    [
      'easy messages without type, assistant content as a string',
      {
        model: 'm',
        input: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
      },
      [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
      ],
    ],
    [
      'files by id and image by file_id stay Responses-only',
      {
        model: 'm',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', file_id: 'file-1' },
              { type: 'input_image', file_id: 'file-2' },
              { type: 'input_file', file_url: 'https://x/a.pdf' },
            ],
          },
        ],
      },
      [
        {
          role: 'user',
          parts: [
            { type: 'opaque', format: 'responses', value: { type: 'input_file', file_id: 'file-1' } },
            { type: 'opaque', format: 'responses', value: { type: 'input_image', file_id: 'file-2' } },
            { type: 'file', url: 'https://x/a.pdf', mediaType: 'application/pdf' },
          ],
        },
      ],
    ],
  ])('%s', (_name, body, messages) => {
    expect(decode(body).messages).toEqual(messages);
  });

  it.each([
    [{ effort: 'none' }, { enabled: false }],
    [{ effort: 'minimal' }, { enabled: true, effort: 'minimal' }],
    [
      { effort: 'xhigh', summary: 'detailed' },
      { enabled: true, effort: 'high', includeThoughts: true },
    ],
    [{ summary: 'concise' }, { enabled: true, includeThoughts: true }],
    [{ effort: null, summary: null }, undefined],
  ])('reasoning %j -> thinking %j', (reasoning, thinking) => {
    expect(decode({ model: 'm', input: 'x', reasoning }).thinking).toEqual(thinking);
  });

  it.each([
    ['none', { type: 'none' }],
    ['required', { type: 'required' }],
    [
      { type: 'function', name: 'f' },
      { type: 'tool', name: 'f' },
    ],
    [
      { type: 'custom', name: 'apply_patch' },
      { type: 'tool', name: 'apply_patch' },
    ],
    [{ type: 'allowed_tools', mode: 'required', tools: [] }, { type: 'required' }],
    [{ type: 'web_search_preview' }, { type: 'auto' }],
  ])('tool_choice %j', (choice, want) => {
    expect(decode({ model: 'm', input: 'x', tool_choice: choice }).toolChoice).toEqual(want);
  });

  it('previous_response_id is kept for the pipeline; outputs may then answer calls not in the input', () => {
    const body = {
      model: 'm',
      previous_response_id: 'resp_prev',
      input: [{ type: 'function_call_output', call_id: 'call_old', output: '42' }],
    };
    const got = decode(body);
    expect(got.previousResponseId).toBe('resp_prev');
    expect(got.messages).toEqual([
      {
        role: 'user',
        parts: [{ type: 'tool_result', callId: 'call_old', content: [{ type: 'text', text: '42' }] }],
      },
    ]);
    expect(decode({ model: 'm', previous_response_id: 'resp_prev' }).messages).toEqual([]);
    // An item reference may hold the call too.
    expect(() =>
      decode({
        model: 'm',
        input: [
          { type: 'item_reference', id: 'fc_1' },
          { type: 'function_call_output', call_id: 'c', output: '' },
        ],
      }),
    ).not.toThrow();
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no model', { input: 'x' }, /model/],
    ['no input', { model: 'm' }, /'input'/],
    ['input a number', { model: 'm', input: 3 }, /input/],
    ['an item that is not an object', { model: 'm', input: ['x'] }, /input\[0\]/],
    ['an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }, /input\[0\]\.role/],
    ['a message without content', { model: 'm', input: [{ role: 'user' }] }, /input\[0\]\.content/],
    [
      'a function_call_output answering no call',
      {
        model: 'm',
        input: [
          { role: 'user', content: 'x' },
          { type: 'function_call_output', call_id: 'call_zz', output: 'r' },
        ],
      },
      /call_zz/,
    ],
    [
      'a custom_tool_call_output answering a call that comes later',
      {
        model: 'm',
        input: [
          { type: 'custom_tool_call_output', call_id: 'c1', output: 'r' },
          { type: 'custom_tool_call', call_id: 'c1', name: 'p', input: '' },
        ],
      },
      /c1/,
    ],
    [
      'a function_call without call_id',
      { model: 'm', input: [{ type: 'function_call', name: 'f' }] },
      /call_id/,
    ],
    [
      'a function_call without name',
      { model: 'm', input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] },
      /name/,
    ],
    [
      'an unknown user content part',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_video', url: 'x' }] }] },
      /input_video/,
    ],
    [
      'an image in an assistant message',
      {
        model: 'm',
        input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x' }] }],
      },
      /assistant/,
    ],
    [
      'an image without URL or file id',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
      /image_url/,
    ],
    [
      'an image URL that is neither http nor data',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] },
      /image URLs/,
    ],
    [
      'a nested (chat-shaped) function tool',
      { model: 'm', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] },
      /tools\[0\]\.name/,
    ],
    ['a tool without type', { model: 'm', input: 'x', tools: [{ name: 'f' }] }, /tools\[0\]\.type/],
    ['tools not an array', { model: 'm', input: 'x', tools: {} }, /tools/],
    ['an unknown tool_choice', { model: 'm', input: 'x', tool_choice: 'any' }, /tool_choice/],
    ['an unknown effort', { model: 'm', input: 'x', reasoning: { effort: 'max!' } }, /reasoning\.effort/],
    ['an unknown summary', { model: 'm', input: 'x', reasoning: { summary: 'long' } }, /reasoning\.summary/],
    [
      'a json_schema without schema',
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'o' } } },
      /text\.format\.schema/,
    ],
    [
      'an unknown text format',
      { model: 'm', input: 'x', text: { format: { type: 'xml' } } },
      /text\.format\.type/,
    ],
    ['max_output_tokens zero', { model: 'm', input: 'x', max_output_tokens: 0 }, /max_output_tokens/],
    ['temperature 3', { model: 'm', input: 'x', temperature: 3 }, /temperature/],
    ['stream not a boolean', { model: 'm', input: 'x', stream: 'yes' }, /stream/],
    ['store not a boolean', { model: 'm', input: 'x', store: 'no' }, /store/],
    ['include not a list of strings', { model: 'm', input: 'x', include: [1] }, /include/],
    ['instructions not a string', { model: 'm', input: 'x', instructions: 5 }, /instructions/],
    [
      'encrypted_content not a string',
      { model: 'm', input: [{ type: 'reasoning', summary: [], encrypted_content: 5 }] },
      /encrypted_content/,
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

  it('odd but harmless input does not crash or refuse', () => {
    const got = decode({
      model: 'm',
      input: [
        { role: 'user', content: '' },
        { type: 'reasoning', id: 'rs_empty', summary: [] },
        { type: 'compaction', encrypted_content: 'x' },
        { type: 'local_shell_call_output', call_id: 'c', output: 'o' },
      ],
      tools: [{ type: 'mcp', server_label: 's' }, { type: 'brand_new_tool' }],
      user: 'u',
      truncation: 'auto',
      service_tier: 'flex',
    });
    expect(got.messages).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'opaque', format: 'responses', value: { type: 'compaction', encrypted_content: 'x' } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'opaque',
            format: 'responses',
            value: { type: 'local_shell_call_output', call_id: 'c', output: 'o' },
          },
        ],
      },
    ]);
    expect(got.tools).toEqual([]);
    expect(got.serverTools).toHaveLength(2);
    expect(got.user).toBe('u');
  });
});
