import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import type { HubRequest } from '../src/relay/formats/hub.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { ctx, streamCtx } from './support/chat-codec.ts';

describe('chat codec: request encoding for an OpenAI-compatible upstream', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  const packed = packCallId('fc_2', 'gem');
  // A Claude-Code-shaped conversation, as the Anthropic decoder would put it in the hub.
  const hub: HubRequest = {
    model: 'deepseek-chat',
    stream: true,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache: { type: 'ephemeral' } },
      { type: 'text', text: 'Be careful.' },
    ],
    messages: [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look at this', cache: { type: 'ephemeral' } },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'secret thoughts', signature: 'sig', signatureFormat: 'anthropic' },
          { type: 'thinking', text: '', redacted: 'opaque-bytes' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_call', id: 'toolu_1', name: 'read', args: '{"path":"a"}' },
          { type: 'tool_call', id: packed, name: 'apply_patch', args: '{"input":"*** Begin"}', custom: true },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            name: 'read',
            content: [
              { type: 'text', text: 'file a' },
              { type: 'image', url: 'https://example.com/shot.png' },
            ],
            isError: false,
          },
          { type: 'tool_result', callId: packed, content: [] },
          { type: 'text', text: 'Continue' },
        ],
      },
    ],
    tools: [
      {
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'apply_patch', parameters: {}, custom: true, cache: { type: 'ephemeral' } },
    ],
    toolChoice: { type: 'tool', name: 'read' },
    parallelToolCalls: true,
    maxTokens: 4096,
    temperature: 1,
    topK: 40,
    stop: ['</done>'],
    thinking: { enabled: true, budgetTokens: 5000 },
    responseFormat: { type: 'json_object' },
    user: 'user-7',
  };

  const body = chatCodec.encodeRequest(hub, streamCtx) as any;

  it('puts messages in OpenAI order: system, user, assistant with tool_calls, tool results, then user', () => {
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.\nBe careful.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          {
            id: packed,
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"*** Begin"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'file a' },
      { role: 'tool', tool_call_id: packed, content: '' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://example.com/shot.png' } },
          { type: 'text', text: 'Continue' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toMatch(/secret thoughts|reasoning_content|cache_control|"sig"/);
  });

  it('sets the parameters OpenAI-compatible servers accept', () => {
    const { messages: _m, ...rest } = body;
    expect(rest).toEqual({
      model: 'deepseek-chat',
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Read a file', parameters: hub.tools[0].parameters },
        },
        {
          type: 'function',
          function: {
            name: 'apply_patch',
            parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'read' } },
      parallel_tool_calls: true,
      max_tokens: 4096,
      temperature: 1,
      stop: ['</done>'],
      reasoning_effort: 'medium',
      response_format: { type: 'json_object' },
      user: 'user-7',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ enabled: true, budgetTokens: 1024 }, 'low'],
    [{ enabled: true, budgetTokens: 8192 }, 'medium'],
    [{ enabled: true, budgetTokens: 8193 }, 'high'],
    [{ enabled: true, effort: 'minimal' as const }, 'minimal'],
    [{ enabled: true }, undefined],
    [{ enabled: false, budgetTokens: 9000 }, undefined],
  ])('thinking %j -> reasoning_effort %s', (thinking, effort) => {
    const b = chatCodec.encodeRequest({ ...hub, thinking }, ctx) as any;
    expect(b.reasoning_effort).toBe(effort);
  });

  it('a plain request has no stream fields, no tool fields without tools, text-only content as a string', () => {
    const b = chatCodec.encodeRequest(
      {
        model: 'm',
        stream: false,
        system: [],
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
        tools: [],
        toolChoice: { type: 'auto' },
        parallelToolCalls: false,
        responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      },
      ctx,
    );
    expect(b).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'a\nb' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'o', schema: { type: 'object' }, strict: true },
      },
    });
  });

  it('files: audio as input_audio, a PDF as a file part, a file URL refused; a thinking-only turn left out', () => {
    const base = { model: 'm', stream: false, system: [], tools: [] };
    const b = chatCodec.encodeRequest(
      {
        ...base,
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'file', data: 'AAAA', mediaType: 'audio/mpeg' },
              { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
              { type: 'opaque', format: 'openai', value: { type: 'file', file: { file_id: 'file-1' } } },
              { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
            ],
          },
          {
            role: 'assistant',
            parts: [{ type: 'thinking', text: 'hmm', signature: 's', signatureFormat: 'anthropic' }],
          },
          { role: 'user', parts: [{ type: 'text', text: 'again' }] },
        ],
      },
      ctx,
    ) as any;
    expect(b.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          { type: 'file', file: { file_id: 'file-1' } },
        ],
      },
      { role: 'user', content: 'again' },
    ]);
    const byUrl = () =>
      chatCodec.encodeRequest(
        {
          ...base,
          messages: [
            { role: 'user', parts: [{ type: 'file', url: 'https://x/a.pdf', mediaType: 'application/pdf' }] },
          ],
        },
        ctx,
      );
    expect(byUrl).toThrow(RelayError);
  });

  it('a chat request survives decode then encode', () => {
    const original = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'r' },
        { role: 'assistant', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      max_tokens: 50,
      stream: true,
    };
    const again = chatCodec.encodeRequest(chatCodec.decodeRequest(original, ctx), ctx);
    expect(again).toEqual({ ...original, stream_options: { include_usage: true } });
  });
});
