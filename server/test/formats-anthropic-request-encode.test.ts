import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import type { CodecContext, HubPart, HubRequest } from '../src/relay/formats/hub.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { ctx, png } from './support/anthropic-codec.ts';

describe('anthropic codec: request encoding for an Anthropic upstream', () => {
  const encode = (req: Partial<HubRequest>, c: CodecContext = ctx) =>
    anthropicCodec.encodeRequest(
      { model: 'claude-sonnet-4-5', stream: false, system: [], messages: [], tools: [], ...req },
      c,
    ) as any;
  const say = (role: 'user' | 'assistant', text: string) => ({
    role,
    parts: [{ type: 'text' as const, text }],
  });

  it('max_tokens: the request, else the channel default, else 8192', () => {
    expect(encode({ messages: [say('user', 'x')], maxTokens: 100 }).max_tokens).toBe(100);
    expect(encode({ messages: [say('user', 'x')] }, { ...ctx, defaultMaxTokens: 64000 }).max_tokens).toBe(
      64000,
    );
    expect(encode({ messages: [say('user', 'x')] }).max_tokens).toBe(8192);
  });

  it('thinking: budgets from effort, max_tokens raised above the budget, sampling limits', () => {
    const on = encode({
      messages: [say('user', 'x')],
      thinking: { enabled: true, effort: 'high' },
      maxTokens: 1000,
      temperature: 0.2,
      topP: 0.5,
      topK: 10,
    });
    expect(on.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(on.max_tokens).toBe(17384);
    expect(on).not.toHaveProperty('temperature');
    expect(on).not.toHaveProperty('top_p');
    expect(on).not.toHaveProperty('top_k');
    expect(
      encode({ messages: [say('user', 'x')], thinking: { enabled: true, effort: 'minimal' } }).thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    expect(
      encode({ messages: [say('user', 'x')], thinking: { enabled: true, budgetTokens: 500 } }).thinking
        .budget_tokens,
    ).toBe(1024);
    expect(encode({ messages: [say('user', 'x')], thinking: { enabled: true }, topP: 0.97 }).top_p).toBe(
      0.97,
    );
    const off = encode({
      messages: [say('user', 'x')],
      thinking: { enabled: false },
      temperature: 1.6,
      topP: 0.5,
      topK: 3,
    });
    expect(off).toMatchObject({ temperature: 1, top_p: 0.5, top_k: 3 });
    expect(off).not.toHaveProperty('thinking');
  });

  it('thinking stays off with a forced tool, and mid tool loop without a verifiable thinking block', () => {
    const tools = [{ name: 'f', parameters: { type: 'object', properties: {} } }];
    expect(
      encode({
        messages: [say('user', 'x')],
        tools,
        toolChoice: { type: 'required' },
        thinking: { enabled: true },
      }),
    ).not.toHaveProperty('thinking');
    const loop = (thinking: HubPart[]) => ({
      messages: [
        say('user', 'x'),
        {
          role: 'assistant' as const,
          parts: [...thinking, { type: 'tool_call' as const, id: 'c1', name: 'f', args: '{}' }],
        },
        {
          role: 'user' as const,
          parts: [
            { type: 'tool_result' as const, callId: 'c1', content: [{ type: 'text' as const, text: 'r' }] },
          ],
        },
      ],
      tools,
      thinking: { enabled: true, budgetTokens: 2048 },
    });
    expect(
      encode(loop([{ type: 'thinking', text: 'from gpt', signature: 'enc', signatureFormat: 'responses' }])),
    ).not.toHaveProperty('thinking');
    expect(
      encode(loop([{ type: 'thinking', text: 't', signature: 's', signatureFormat: 'anthropic' }])).thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 2048,
    });
  });

  it('a whole conversation: roles merged, results first, thinking replayed only when Anthropic signed it', () => {
    const body = encode({
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Cached.', cache: { type: 'ephemeral', ttl: '1h' } },
      ],
      messages: [
        say('user', 'first'),
        {
          role: 'user',
          parts: [
            { type: 'text', text: '' },
            { type: 'image', data: png, mediaType: 'image/jpg' },
            { type: 'image', url: 'https://example.com/a.png' },
            { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
            { type: 'file', data: Buffer.from('hello').toString('base64'), mediaType: 'text/plain' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'mine', signature: 'sig-A', signatureFormat: 'anthropic' },
            { type: 'thinking', text: 'theirs', signature: 'gsig', signatureFormat: 'gemini' },
            { type: 'thinking', text: 'unsigned' },
            { type: 'thinking', text: '', redacted: 'RED' },
            { type: 'text', text: 'Calling.' },
            { type: 'tool_call', id: 'functions.get:0', name: 'get', args: '{"a":1}' },
            { type: 'tool_call', id: 'call_2', name: 'get', args: 'not json' },
            { type: 'opaque', format: 'openai', value: { audio: {} } },
          ],
        },
        {
          role: 'assistant',
          parts: [{ type: 'thinking', text: 'only foreign', signature: 'x', signatureFormat: 'responses' }],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'and here are the results' },
            {
              type: 'tool_result',
              callId: 'functions.get:0',
              content: [
                { type: 'text', text: 'r1' },
                { type: 'image', data: png, mediaType: 'image/png' },
              ],
            },
            { type: 'tool_result', callId: 'call_2', content: [], isError: true },
          ],
        },
      ],
      user: 'u-1',
      stop: ['END', '  '],
      seed: 3,
      frequencyPenalty: 1,
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Cached.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
            title: 'a.pdf',
          },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'mine', signature: 'sig-A' },
          { type: 'redacted_thinking', data: 'RED' },
          { type: 'text', text: 'Calling.' },
          { type: 'tool_use', id: 'functions_get_0', name: 'get', input: { a: 1 } },
          { type: 'tool_use', id: 'call_2', name: 'get', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'functions_get_0',
            content: [
              { type: 'text', text: 'r1' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            ],
          },
          { type: 'tool_result', tool_use_id: 'call_2', is_error: true },
          { type: 'text', text: 'and here are the results' },
        ],
      },
    ]);
    expect(body.metadata).toEqual({ user_id: 'u-1' });
    expect(body.stop_sequences).toEqual(['END']);
    for (const k of ['seed', 'frequency_penalty', 'n', 'stream', 'tools', 'tool_choice'])
      expect(body).not.toHaveProperty(k);
  });

  it('tools, server tools and tool choice', () => {
    const tools = [
      {
        name: 'f',
        description: 'does f',
        parameters: { type: 'object', properties: { a: { type: 'string' } } },
        cache: { type: 'ephemeral' as const },
      },
      {
        name: 'apply_patch',
        parameters: { type: 'object', properties: { input: { type: 'string' } } },
        custom: true,
      },
    ];
    const serverTools = [
      {
        type: 'opaque' as const,
        format: 'anthropic' as const,
        value: { type: 'web_search_20250305', name: 'web_search' },
      },
    ];
    const foreign = [
      { type: 'opaque' as const, format: 'responses' as const, value: { type: 'web_search' } },
    ];
    const body = encode({ messages: [say('user', 'x')], tools, serverTools: [...serverTools, ...foreign] });
    expect(body.tools).toEqual([
      {
        name: 'f',
        description: 'does f',
        input_schema: tools[0].parameters,
        cache_control: { type: 'ephemeral' },
      },
      { name: 'apply_patch', input_schema: tools[1].parameters },
      { type: 'web_search_20250305', name: 'web_search' },
    ]);
    expect(body).not.toHaveProperty('tool_choice');
    const choice = (toolChoice: HubRequest['toolChoice'], parallelToolCalls?: boolean) =>
      encode({ messages: [say('user', 'x')], tools, toolChoice, parallelToolCalls }).tool_choice;
    expect(choice({ type: 'required' })).toEqual({ type: 'any' });
    expect(choice({ type: 'tool', name: 'f' }, false)).toEqual({
      type: 'tool',
      name: 'f',
      disable_parallel_tool_use: true,
    });
    expect(choice({ type: 'none' })).toEqual({ type: 'none' });
    expect(choice({ type: 'auto' })).toEqual({ type: 'auto' });
    expect(choice(undefined, false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    // The hub's values are not changed by encoding.
    expect(serverTools[0].value).toEqual({ type: 'web_search_20250305', name: 'web_search' });
  });

  it('n > 1 is refused; a JSON response format becomes a closing system instruction', () => {
    expect(() => encode({ messages: [say('user', 'x')], n: 2 })).toThrow(RelayError);
    const body = encode({
      messages: [say('user', 'x')],
      responseFormat: {
        type: 'json_schema',
        name: 'person',
        schema: { type: 'object', properties: { name: { type: 'string' } } },
      },
    });
    expect(body.system.at(-1).text).toContain('{"type":"object","properties":{"name":{"type":"string"}}}');
    expect(
      encode({ messages: [say('user', 'x')], responseFormat: { type: 'json_object' } }).system[0].text,
    ).toContain('JSON object');
  });

  it('at most 4 cache marks: the last ones are kept', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache: { type: 'ephemeral' as const } });
    const body = encode({
      system: [marked('s1'), marked('s2')],
      messages: [{ role: 'user', parts: [marked('u1'), marked('u2'), marked('u3')] }],
    });
    const marks = JSON.stringify(body).match(/cache_control/g) ?? [];
    expect(marks).toHaveLength(4);
    expect(body.system[0]).not.toHaveProperty('cache_control');
    expect(body.messages[0].content[2]).toHaveProperty('cache_control');
  });

  it('images Anthropic cannot take and unreadable files are refused clearly', () => {
    expect(() =>
      encode({
        messages: [{ role: 'user', parts: [{ type: 'image', data: 'AAAA', mediaType: 'image/bmp' }] }],
      }),
    ).toThrow(/jpeg, png, gif and webp/);
    expect(() =>
      encode({
        messages: [{ role: 'user', parts: [{ type: 'file', data: 'AAAA', mediaType: 'audio/mpeg' }] }],
      }),
    ).toThrow(/audio\/mpeg/);
  });

  it('a final assistant turn (prefill) loses its trailing whitespace', () => {
    const body = encode({ messages: [say('user', 'x'), say('assistant', '{"a": ')] });
    expect(body.messages[1].content).toEqual([{ type: 'text', text: '{"a":' }]);
  });

  it('stream: true only when streaming', () => {
    expect(encode({ messages: [say('user', 'x')], stream: true }).stream).toBe(true);
  });

  it('an OpenAI chat request (client) becomes a valid Anthropic body (upstream)', () => {
    const hub = chatCodec.decodeRequest(
      {
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"c":"P"}' } },
              { id: 'call_2', type: 'function', function: { name: 'w', arguments: '{"c":"L"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_2', content: 'rain' },
        ],
        tools: [
          { type: 'function', function: { name: 'w', parameters: { type: 'object', properties: {} } } },
        ],
        tool_choice: 'required',
        reasoning_effort: 'medium',
        stream: true,
      },
      ctx,
    );
    const body = anthropicCodec.encodeRequest(hub, { ...ctx, defaultMaxTokens: 4096 }) as any;
    expect(body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'sys' }],
      tool_choice: { type: 'any' },
      stream: true,
    });
    // A forced tool: no thinking.
    expect(body).not.toHaveProperty('thinking');
    expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1].content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'w', input: { c: 'P' } },
      { type: 'tool_use', id: 'call_2', name: 'w', input: { c: 'L' } },
    ]);
    expect(body.messages[2].content.map((b: any) => b.tool_use_id)).toEqual(['call_1', 'call_2']);
  });

  it('an Anthropic request (client) to an OpenAI chat upstream: server tools never reach it', () => {
    const hub = anthropicCodec.decodeRequest(
      {
        model: 'gpt-5',
        max_tokens: 100,
        tools: [
          { name: 'f', input_schema: { type: 'object', properties: {} } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 8 },
        ],
        messages: [{ role: 'user', content: 'x' }],
      },
      ctx,
    );
    const body = chatCodec.encodeRequest(hub, ctx) as any;
    expect(body.tools.map((t: any) => t.function.name)).toEqual(['f']);
    expect(JSON.stringify(body)).not.toContain('web_search');
  });
});
