import { describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/relay-error.ts';
import { badRequestOf, base, decode, user } from './support/anthropic-codec.ts';

describe('anthropic codec: request decoding', () => {
  it.each([
    [{ model: 'm', messages: [user('x')] }, 'max_tokens: Field required'],
    [{ max_tokens: 5, messages: [user('x')] }, 'model: Field required'],
    [{ ...base }, 'messages: Field required'],
    [{ ...base, messages: [] }, 'messages: at least one message is required'],
    [
      { ...base, max_tokens: 0, messages: [user('x')] },
      'max_tokens: Input should be greater than or equal to 1',
    ],
    [{ ...base, max_tokens: '100', messages: [user('x')] }, 'max_tokens: Input should be a valid integer'],
    [
      { ...base, temperature: 1.5, messages: [user('x')] },
      'temperature: Input should be less than or equal to 1',
    ],
    [
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      "messages.0.role: Input should be 'user' or 'assistant'",
    ],
    [{ ...base, messages: [user(null)] }, 'messages.0.content: Field required'],
    [{ ...base, messages: [user(42)] }, 'messages.0.content: Input should be a valid string or a valid list'],
    [{ ...base, messages: [user('')] }, 'messages.0: all messages must have non-empty content'],
    [
      { ...base, messages: [user([{ type: 'text', text: '  ' }])] },
      'messages.0.content.0.text: text content blocks must contain non-whitespace text',
    ],
    [
      { ...base, messages: [user([{ type: 'input_text', text: 'x' }])] },
      "messages.0.content.0: Input tag 'input_text' found using 'type' does not match any of the expected tags: 'text', 'image'",
    ],
    [{ ...base, messages: [user([{ text: 'x' }])] }, 'messages.0.content.0.type: Field required'],
    [{ ...base, messages: [user(['x'])] }, 'messages.0.content.0: Input should be a valid dictionary'],
    [
      { ...base, messages: [user([{ type: 'text', text: 5 }])] },
      'messages.0.content.0.text: Input should be a valid string',
    ],
    [
      {
        ...base,
        messages: [
          user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA' } }]),
        ],
      },
      "messages.0.content.0.source.media_type: Input should be 'image/jpeg'",
    ],
    [{ ...base, messages: [user([{ type: 'image' }])] }, 'messages.0.content.0.source: Field required'],
    [
      { ...base, messages: [user([{ type: 'tool_use', id: 't', name: 'f', input: {} }])] },
      'messages.0.content.0: `tool_use` blocks can only be in `assistant` messages',
    ],
    [
      {
        ...base,
        messages: [user('x'), { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't' }] }],
      },
      'messages.1.content.0: `tool_result` blocks can only be in `user` messages',
    ],
    [
      { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }])] },
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x',
    ],
    [
      {
        ...base,
        messages: [
          user('x'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: 'x' }] },
        ],
      },
      'messages.1.content.0.input: Input should be a valid dictionary',
    ],
    [
      {
        ...base,
        messages: [user('x'), { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }],
      },
      'messages.1.content.0.signature: Field required',
    ],
    [
      { ...base, system: [{ type: 'image' }], messages: [user('x')] },
      "system.0: Input tag 'image' found using 'type' does not match any of the expected tags: 'text'",
    ],
    [
      { ...base, tools: [{ name: 'f' }], messages: [user('x')] },
      'tools.0.custom.input_schema: Field required',
    ],
    [
      { ...base, tools: [{ name: 'f', input_schema: { type: 'string' } }], messages: [user('x')] },
      "tools.0.custom.input_schema.type: Input should be 'object'",
    ],
    [
      { ...base, tools: [{ input_schema: { type: 'object' } }], messages: [user('x')] },
      'tools.0.name: Field required',
    ],
    [
      {
        ...base,
        tools: [
          { name: 'f', input_schema: { type: 'object' } },
          { name: 'f', input_schema: { type: 'object' } },
        ],
        messages: [user('x')],
      },
      'Tool names must be unique',
    ],
    [{ ...base, tools: {}, messages: [user('x')] }, 'tools: Input should be a valid list'],
    [
      { ...base, tool_choice: { type: 'tool', name: 'nope' }, messages: [user('x')] },
      "Tool 'nope' named in tool_choice is not in tools",
    ],
    [
      { ...base, tool_choice: 'auto', messages: [user('x')] },
      'tool_choice: Input should be a valid dictionary',
    ],
    [
      { ...base, tool_choice: { type: 'required' }, messages: [user('x')] },
      "tool_choice: Input tag 'required'",
    ],
    [
      { ...base, thinking: { type: 'enabled' }, messages: [user('x')] },
      'thinking.enabled.budget_tokens: Field required',
    ],
    [
      { ...base, thinking: { type: 'enabled', budget_tokens: 500 }, messages: [user('x')] },
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    ],
    [{ ...base, thinking: { type: 'on' }, messages: [user('x')] }, "thinking: Input tag 'on'"],
    [
      { ...base, stop_sequences: 'STOP', messages: [user('x')] },
      'stop_sequences: Input should be a valid list',
    ],
    [
      { ...base, stop_sequences: [1], messages: [user('x')] },
      'stop_sequences.0: Input should be a valid string',
    ],
    [
      { ...base, metadata: { user_id: 5 }, messages: [user('x')] },
      'metadata.user_id: Input should be a valid string',
    ],
    [{ ...base, stream: 'yes', messages: [user('x')] }, 'stream: Input should be a valid boolean'],
  ])('400 %#: %s', (body, message) => {
    const err = badRequestOf(body as Record<string, unknown>);
    expect(err.message).toContain(message);
  });

  it('a tool_result must answer an earlier tool_use, not a server tool', () => {
    const err = badRequestOf({
      ...base,
      messages: [
        user('x'),
        {
          role: 'assistant',
          content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }],
        },
        user([{ type: 'tool_result', tool_use_id: 'srvtoolu_1', content: 'r' }]),
      ],
    });
    expect(err.message).toContain('srvtoolu_1');
  });

  it('odd input never crashes: every malformed shape is a 400', () => {
    const odd = [null, 0, 'x', [], {}, true, [null], [{}], [{ type: null }], { type: 'text' }];
    for (const v of odd)
      for (const body of [
        { ...base, messages: v },
        { ...base, messages: [{ role: 'user', content: v }] },
        { ...base, messages: [{ role: 'user', content: [v] }] },
        { ...base, messages: [user('x')], system: v },
        { ...base, messages: [user('x')], tools: v },
        { ...base, messages: [user('x')], tools: [v] },
        { ...base, messages: [user('x')], tool_choice: v },
        { ...base, messages: [user('x')], thinking: v },
        { ...base, messages: [user('x')], metadata: v },
        { ...base, messages: [user([{ type: 'tool_result', tool_use_id: v, content: v }])] },
        { ...base, messages: [user([{ type: 'image', source: v }])] },
        { ...base, messages: [user([{ type: 'document', source: v }])] },
      ]) {
        try {
          decode(body as Record<string, unknown>);
        } catch (e) {
          expect(e).toBeInstanceOf(RelayError);
          expect((e as RelayError).status).toBe(400);
        }
      }
  });
});
