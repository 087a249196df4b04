import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import { base, decode, jpeg, png, user } from './support/anthropic-codec.ts';

describe('anthropic codec: request decoding', () => {
  it('reads a Claude Code turn: system blocks with cache marks, tools, thinking, tool loop with images', () => {
    const req = decode({
      model: 'claude-sonnet-4-5',
      max_tokens: 32000,
      stream: true,
      system: [
        { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
        { type: 'text', text: 'Project rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
      tools: [
        {
          name: 'Read',
          description: 'Reads a file',
          input_schema: {
            type: 'object',
            properties: { file_path: { type: 'string' } },
            required: ['file_path'],
          },
          cache_control: { type: 'ephemeral' },
        },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 8 },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 10000 },
      metadata: { user_id: 'user_abc_account__session_1' },
      temperature: 1,
      top_k: 40,
      stop_sequences: ['\n\nHuman:'],
      messages: [
        user([
          { type: 'text', text: 'What is in this screenshot?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: jpeg } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
            title: 'a.pdf',
          },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain doc' } },
        ]),
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read it.', signature: 'sig-A' },
            { type: 'redacted_thinking', data: 'RED' },
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a' } },
            { type: 'tool_use', id: packCallId('fc_2', 'gem'), name: 'Read', input: {} },
          ],
        },
        user([
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: 'file text' },
              { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: png } },
            ],
            cache_control: { type: 'ephemeral' },
          },
          { type: 'tool_result', tool_use_id: packCallId('fc_2', 'gem'), content: 'oops', is_error: true },
          { type: 'text', text: 'Go on.' },
        ]),
      ],
    });
    expect(req).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      maxTokens: 32000,
      parallelToolCalls: false,
      toolChoice: { type: 'auto' },
      thinking: { enabled: true, budgetTokens: 10000, includeThoughts: true },
      user: 'user_abc_account__session_1',
      temperature: 1,
      topK: 40,
      stop: ['\n\nHuman:'],
    });
    expect(req.system).toEqual([
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'Project rules.', cache: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(req.tools).toEqual([
      {
        name: 'Read',
        description: 'Reads a file',
        parameters: {
          type: 'object',
          properties: { file_path: { type: 'string' } },
          required: ['file_path'],
        },
        cache: { type: 'ephemeral' },
      },
    ]);
    expect(req.serverTools).toEqual([
      {
        type: 'opaque',
        format: 'anthropic',
        value: { type: 'web_search_20250305', name: 'web_search', max_uses: 8 },
      },
    ]);
    expect(req.messages[0].parts).toEqual([
      { type: 'text', text: 'What is in this screenshot?' },
      // The declared type is wrong: the bytes say jpeg.
      { type: 'image', data: jpeg, mediaType: 'image/jpeg' },
      { type: 'image', url: 'https://example.com/a.png' },
      { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'text', text: 'plain doc' },
    ]);
    expect(req.messages[1].parts).toEqual([
      { type: 'thinking', text: 'I should read it.', signature: 'sig-A', signatureFormat: 'anthropic' },
      { type: 'thinking', text: '', redacted: 'RED' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_call', id: 'toolu_1', name: 'Read', args: '{"file_path":"/a"}' },
      {
        type: 'tool_call',
        id: packCallId('fc_2', 'gem'),
        name: 'Read',
        args: '{}',
        signature: 'gem',
        signatureFormat: 'gemini',
      },
    ]);
    expect(req.messages[2].parts).toEqual([
      {
        type: 'tool_result',
        callId: 'toolu_1',
        name: 'Read',
        content: [
          { type: 'text', text: 'file text' },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
        cache: { type: 'ephemeral' },
      },
      {
        type: 'tool_result',
        callId: packCallId('fc_2', 'gem'),
        name: 'Read',
        content: [{ type: 'text', text: 'oops' }],
        isError: true,
      },
      { type: 'text', text: 'Go on.' },
    ]);
  });

  it('the minimal request, string content and system, and defaults', () => {
    const req = decode({ ...base, system: 'Be brief.', messages: [user('hi')] });
    expect(req).toEqual({
      model: 'claude-sonnet-4-5',
      stream: false,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      maxTokens: 1024,
    });
  });

  it('a final empty assistant message (prefill) is allowed; server blocks in history are kept opaque', () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const req = decode({
      ...base,
      messages: [
        user('hi'),
        { role: 'assistant', content: [search, result, { type: 'text', text: 'found' }] },
        user('and?'),
        { role: 'assistant', content: '' },
      ],
    });
    expect(req.messages[1].parts).toEqual([
      { type: 'opaque', format: 'anthropic', value: search },
      { type: 'opaque', format: 'anthropic', value: result },
      { type: 'text', text: 'found' },
    ]);
    expect(req.messages[3]).toEqual({ role: 'assistant', parts: [] });
  });

  it('thinking configs and effort', () => {
    const t = (extra: Record<string, unknown>) =>
      decode({ ...base, max_tokens: 20000, messages: [user('x')], ...extra }).thinking;
    expect(t({ thinking: { type: 'disabled' } })).toEqual({ enabled: false });
    expect(t({ thinking: { type: 'adaptive' } })).toEqual({ enabled: true, includeThoughts: true });
    expect(
      t({ thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'max' } }),
    ).toEqual({
      enabled: true,
      effort: 'high',
      includeThoughts: false,
    });
    expect(t({ output_config: { effort: 'low' } })).toEqual({ enabled: true, effort: 'low' });
    expect(t({})).toBeUndefined();
    // A budget above max_tokens: Anthropic takes it with interleaved thinking (Claude Code's beta).
    expect(t({ thinking: { type: 'enabled', budget_tokens: 30000 } })).toEqual({
      enabled: true,
      budgetTokens: 30000,
      includeThoughts: true,
    });
  });

  it('tool_choice forms', () => {
    const tools = [
      { name: 'f', input_schema: { type: 'object' } },
      { type: 'web_search_20250305', name: 'web_search' },
    ];
    const c = (tool_choice: unknown) => {
      const r = decode({ ...base, messages: [user('x')], tools, tool_choice });
      return { toolChoice: r.toolChoice, parallelToolCalls: r.parallelToolCalls };
    };
    expect(c({ type: 'any' })).toEqual({ toolChoice: { type: 'required' }, parallelToolCalls: undefined });
    expect(c({ type: 'tool', name: 'f', disable_parallel_tool_use: false })).toEqual({
      toolChoice: { type: 'tool', name: 'f' },
      parallelToolCalls: true,
    });
    expect(c({ type: 'none' })).toEqual({ toolChoice: { type: 'none' }, parallelToolCalls: undefined });
    // Forcing a server tool cannot be said to other formats: auto.
    expect(c({ type: 'tool', name: 'web_search' }).toolChoice).toEqual({ type: 'auto' });
  });
});
