import { describe, expect, it } from 'vitest';
import type { HubRequest } from '../src/relay/formats/hub.ts';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import {
  answerOfEvents,
  answerOfResponse,
  checkLifecycle,
  ctx,
  DIR,
  decodeLines,
  encodeEvents,
  sseEvents,
  streamCtx,
} from './support/responses-codec.ts';

describe('responses codec: request encoding for an OpenAI / Azure Responses upstream', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  // A Claude-Code-shaped conversation, as the Anthropic decoder would put it in the hub.
  const hub: HubRequest = {
    model: 'gpt-5',
    stream: true,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache: { type: 'ephemeral' } },
      { type: 'text', text: 'Be careful.' },
    ],
    messages: [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look', cache: { type: 'ephemeral' } },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'anthropic thoughts', signature: 'sig', signatureFormat: 'anthropic' },
          { type: 'thinking', text: '', redacted: 'opaque-bytes' },
          {
            type: 'thinking',
            text: 'openai summary',
            signature: 'enc-1',
            signatureFormat: 'responses',
            itemId: 'rs_9',
          },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_1', name: 'read', args: '{"path":"a"}' },
          {
            type: 'tool_call',
            id: 'call_p',
            name: 'apply_patch',
            args: '{"input":"*** Begin"}',
            custom: true,
          },
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
              { type: 'image', url: 'https://example.com/shot.png', detail: 'low' },
            ],
          },
          { type: 'tool_result', callId: 'call_p', content: [{ type: 'text', text: 'ok' }], custom: true },
          { type: 'text', text: 'Continue' },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
          { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
        ],
      },
      {
        role: 'assistant',
        parts: [{ type: 'thinking', text: 'trailing', signature: 'enc-2', signatureFormat: 'responses' }],
      },
    ],
    tools: [
      {
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'apply_patch', parameters: {}, custom: true },
      { name: 'strict_one', parameters: { type: 'object' }, strict: true },
    ],
    serverTools: [
      { type: 'opaque', format: 'anthropic', value: { type: 'web_search_20250305', name: 'web_search' } },
      { type: 'opaque', format: 'responses', value: { type: 'web_search' } },
    ],
    toolChoice: { type: 'tool', name: 'apply_patch' },
    parallelToolCalls: false,
    maxTokens: 4096,
    temperature: 1,
    topK: 40,
    stop: ['</done>'],
    seed: 7,
    thinking: { enabled: true, budgetTokens: 5000, includeThoughts: true },
    responseFormat: { type: 'json_object' },
    user: 'user-7',
  };
  const body = responsesCodec.encodeRequest(hub, streamCtx) as any;

  it('input items: only Responses reasoning replayed, calls without item ids, results as outputs', () => {
    expect(body.instructions).toBe('You are Claude Code.\n\nBe careful.');
    expect(body.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_9',
        summary: [{ type: 'summary_text', text: 'openai summary' }],
        encrypted_content: 'enc-1',
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
      { type: 'function_call', call_id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin' },
      {
        type: 'function_call_output',
        call_id: 'toolu_1',
        output: [
          { type: 'input_text', text: 'file a' },
          { type: 'input_image', image_url: 'https://example.com/shot.png', detail: 'low' },
        ],
      },
      { type: 'custom_tool_call_output', call_id: 'call_p', output: 'ok' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Continue' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toMatch(
      /anthropic thoughts|"sig"|opaque-bytes|cache|server_tool_use|enc-2/,
    );
  });

  it('parameters: strict said explicitly, custom tools, server tools of Responses only, reasoning with encrypted content', () => {
    const { input: _i, instructions: _s, ...rest } = body;
    expect(rest).toEqual({
      model: 'gpt-5',
      tools: [
        {
          type: 'function',
          name: 'read',
          description: 'Read a file',
          parameters: hub.tools[0].parameters,
          strict: false,
        },
        { type: 'custom', name: 'apply_patch' },
        { type: 'function', name: 'strict_one', parameters: { type: 'object' }, strict: true },
        { type: 'web_search' },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
      max_output_tokens: 4096,
      temperature: 1,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      text: { format: { type: 'json_object' } },
      user: 'user-7',
      store: false,
      stream: true,
    });
  });

  it('a plain request: no tools, no reasoning, no stream', () => {
    const b = responsesCodec.encodeRequest(
      {
        model: 'gpt-4.1',
        stream: false,
        system: [],
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        tools: [],
        toolChoice: { type: 'auto' },
        thinking: { enabled: false },
        responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      },
      ctx,
    );
    expect(b).toEqual({
      model: 'gpt-4.1',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      text: { format: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true } },
      store: false,
    });
  });

  it('audio cannot go to a Responses upstream', () => {
    expect(() =>
      responsesCodec.encodeRequest(
        {
          model: 'm',
          stream: false,
          system: [],
          tools: [],
          messages: [{ role: 'user', parts: [{ type: 'file', data: 'AAAA', mediaType: 'audio/wav' }] }],
        },
        ctx,
      ),
    ).toThrow(RelayError);
  });

  it('a Codex request survives decode then encode', () => {
    const original = {
      model: 'gpt-5-codex',
      instructions: 'sys',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'q' }] },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 's' }],
          encrypted_content: 'enc',
        },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'r' },
        { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: 'patch' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: 'ok' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { role: 'user', content: [{ type: 'input_text', text: 'more' }] },
      ],
      tools: [
        { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false },
        { type: 'custom', name: 'apply_patch' },
        { type: 'web_search' },
      ],
      tool_choice: 'required',
      parallel_tool_calls: true,
      max_output_tokens: 50,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      stream: true,
    };
    const again = responsesCodec.encodeRequest(responsesCodec.decodeRequest(original, ctx), ctx);
    expect(again).toEqual(original);
  });
});

describe('responses codec: same-format round trips', () => {
  const files = ['text.json', 'reasoning-summary.json', 'phase-cached-tokens.json', 'image-generation.json'];

  it.each(files)('%s: decode, encode, decode gives the same answer', (file) => {
    const body = fixtureJson(`${DIR}/${file}`);
    const hub = responsesCodec.decodeResponse(body, ctx);
    const encoded = responsesCodec.encodeResponse(hub, ctx) as any;
    expect(answerOfResponse(responsesCodec.decodeResponse(encoded, ctx))).toEqual(answerOfResponse(hub));
    expect(encoded).toMatchObject({
      id: body.id,
      object: 'response',
      created_at: body.created_at,
      model: body.model,
      status: 'completed',
      usage: body.usage,
    });
    const reasoning = body.output.filter((o: any) => o.type === 'reasoning' && o.encrypted_content);
    expect(encoded.output.filter((o: any) => o.type === 'reasoning')).toEqual(
      reasoning.map((o: any) => ({
        id: o.id,
        type: 'reasoning',
        summary: o.summary,
        encrypted_content: o.encrypted_content,
      })),
    );
  });

  const streams = [
    'text.chunks.txt',
    'reasoning-summary.chunks.txt',
    'reasoning-function-call.chunks.txt',
    'phase-cached-tokens.chunks.txt',
    'image-generation.chunks.txt',
  ];

  it.each(streams)('%s: decode, encode, decode gives the same events', (file) => {
    const events = decodeLines(fixtureChunks(`${DIR}/${file}`));
    const frames = sseEvents(encodeEvents(events));
    const again = decodeLines(frames.map((f) => JSON.stringify(f)));
    expect(answerOfEvents(again)).toEqual(answerOfEvents(events));
    checkLifecycle(frames);
  });
});
