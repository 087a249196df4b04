import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { ctx } from './support/responses-codec.ts';

describe('responses codec: request decoding (Codex CLI, Agents SDK)', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  const packed = packCallId('call_g', 'gem-sig');
  const applyPatch = {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files.',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
  };
  // The shape of a Codex request: stateless, whole history, encrypted reasoning.
  const codex = {
    model: 'gpt-5-codex',
    instructions: 'You are Codex.',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: read-only.' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Fix the bug' },
          { type: 'input_image', image_url: `data:image/jpg;base64,${png}`, detail: 'high' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Looking at files' }],
        content: null,
        encrypted_content: 'gAAAA-enc',
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'shell',
        arguments: '{"command":["ls"]}',
      },
      { type: 'function_call', call_id: packed, name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'a.ts\nb.ts' },
      {
        type: 'function_call_output',
        call_id: packed,
        output: [
          { type: 'input_text', text: 'see image' },
          { type: 'input_image', image_url: 'https://example.com/x.png' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'r.pdf' },
        ],
      },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Done!' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Fixed.', annotations: [] },
          { type: 'refusal', refusal: 'Not the tests.' },
        ],
      },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
      { role: 'user', content: 'Thanks' },
    ],
    tools: [
      {
        type: 'function',
        name: 'shell',
        description: 'Runs a shell command',
        strict: false,
        parameters: { type: 'object', properties: { command: { type: 'array' } } },
      },
      applyPatch,
      { type: 'web_search', search_context_size: 'low' },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'high', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'conv-1',
    text: {
      verbosity: 'low',
      format: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
    },
    max_output_tokens: 5000,
    safety_identifier: 'user-1',
    metadata: { a: 'b' },
  };

  const hub = responsesCodec.decodeRequest(codex, ctx);

  it('system: instructions first, then developer messages', () => {
    expect(hub.system).toEqual([
      { type: 'text', text: 'You are Codex.' },
      { type: 'text', text: 'Sandbox: read-only.' },
    ]);
  });

  it('turns: user, assistant (reasoning + calls), results (images kept, files after), assistant, user', () => {
    expect(hub.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Fix the bug' },
          { type: 'image', data: png, mediaType: 'image/png', detail: 'high' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'thinking',
            text: 'Looking at files',
            signature: 'gAAAA-enc',
            signatureFormat: 'responses',
            itemId: 'rs_1',
          },
          { type: 'tool_call', id: 'call_1', name: 'shell', args: '{"command":["ls"]}' },
          {
            type: 'tool_call',
            id: packed,
            name: 'read',
            args: '{}',
            signature: 'gem-sig',
            signatureFormat: 'gemini',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_1',
            name: 'shell',
            content: [{ type: 'text', text: 'a.ts\nb.ts' }],
          },
          {
            type: 'tool_result',
            callId: packed,
            name: 'read',
            content: [
              { type: 'text', text: 'see image' },
              { type: 'image', url: 'https://example.com/x.png' },
            ],
          },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'r.pdf' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call_p',
            name: 'apply_patch',
            args: '{"input":"*** Begin Patch"}',
            custom: true,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_p',
            name: 'apply_patch',
            content: [{ type: 'text', text: 'Done!' }],
            custom: true,
          },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Fixed.' },
          { type: 'refusal', text: 'Not the tests.' },
          { type: 'opaque', format: 'responses', value: codex.input[10] },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('tools: flat functions, custom apply_patch with its grammar in the description, hosted tools as server tools', () => {
    expect(hub.tools).toEqual([
      {
        name: 'shell',
        description: 'Runs a shell command',
        parameters: { type: 'object', properties: { command: { type: 'array' } } },
        strict: false,
      },
      {
        name: 'apply_patch',
        description:
          'Use the `apply_patch` tool to edit files.\n\nThe input must match this lark grammar:\nstart: begin_patch hunk+ end_patch',
        parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
        custom: true,
      },
    ]);
    expect(hub.serverTools).toEqual([
      { type: 'opaque', format: 'responses', value: { type: 'web_search', search_context_size: 'low' } },
    ]);
  });

  it('options', () => {
    const { system: _s, messages: _m, tools: _t, serverTools: _st, ...rest } = hub;
    expect(rest).toEqual({
      model: 'gpt-5-codex',
      stream: true,
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      maxTokens: 5000,
      thinking: { enabled: true, effort: 'high', includeThoughts: true },
      responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      user: 'user-1',
    });
  });
});
