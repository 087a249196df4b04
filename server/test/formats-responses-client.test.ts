import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import type { CodecContext, HubEvent, HubResponse } from '../src/relay/formats/hub.ts';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { claudeAnswerHead, signedThinking, twoCalls } from './support/hub-answers.ts';
import {
  checkLifecycle,
  ctx,
  decodeLines,
  encodeEvents,
  responsesClient,
  sseEvents,
  streamCtx,
  usage,
} from './support/responses-codec.ts';

describe('responses codec: encoder output through the official openai client', () => {
  const { sdk, upstream, params, start, serveStream, finalOf } = responsesClient();

  it('a whole answer: reasoning, text, refusal, calls (one custom, one with a Gemini signature), usage', async () => {
    const hub: HubResponse = {
      ...claudeAnswerHead(),
      parts: [
        signedThinking(),
        { type: 'thinking', text: 'Own.', signature: 'enc', signatureFormat: 'responses', itemId: 'rs_own' },
        { type: 'thinking', text: '', redacted: 'xx' },
        { type: 'text', text: 'Checking both.' },
        { type: 'refusal', text: 'Not that.' },
        ...twoCalls(),
        { type: 'tool_call', id: 'call_p', name: 'apply_patch', args: '{"input":"*** Begin"}', custom: true },
        { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
      ],
      stop: 'tool_calls',
      usage: usage(100, 40, 60, 10),
    };
    upstream.reply = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(responsesCodec.encodeResponse(hub, ctx)),
    };
    const got = await sdk.client.responses.create(params);
    expect(got.id).toBe('resp_msg_01abc');
    expect(got.status).toBe('completed');
    expect(got.output_text).toBe('Checking both.');
    expect(got.output.map((o) => o.type)).toEqual([
      'reasoning',
      'reasoning',
      'message',
      'function_call',
      'function_call',
      'custom_tool_call',
    ]);
    expect(got.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Let me look.' }] });
    expect(got.output[0]).not.toHaveProperty('encrypted_content');
    expect(got.output[1]).toMatchObject({ id: 'rs_own', encrypted_content: 'enc' });
    expect((got.output[2] as any).content).toEqual([
      { type: 'output_text', text: 'Checking both.', annotations: [], logprobs: [] },
      { type: 'refusal', refusal: 'Not that.' },
    ]);
    expect(got.output.slice(3)).toMatchObject([
      {
        type: 'function_call',
        call_id: 'toolu_1',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        id: expect.stringMatching(/^fc_/),
      },
      { type: 'function_call', call_id: packCallId('fc_2', 'gem-sig'), name: 'time', arguments: '{}' },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin' },
    ]);
    expect(got.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 140,
    });
    expect(JSON.stringify(got)).not.toMatch(/anthropic-sig|server_tool_use/);
  });

  it.each([
    ['max_tokens', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
    ['refusal', 'content_filter'],
  ] as const)('a whole answer stopped by %s is incomplete (%s)', async (stop, reason) => {
    const hub: HubResponse = {
      id: 'resp_1',
      model: 'm',
      created: 1,
      parts: [{ type: 'text', text: 'par' }],
      stop,
      usage: usage(1, 1),
    };
    upstream.reply = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(responsesCodec.encodeResponse(hub, ctx)),
    };
    const got = await sdk.client.responses.create(params);
    expect(got).toMatchObject({ id: 'resp_1', status: 'incomplete', incomplete_details: { reason } });
  });

  it('a blocked prompt is incomplete with content_filter and no output', () => {
    const res = responsesCodec.encodeResponse(
      {
        id: 'x',
        model: 'm',
        created: 1,
        parts: [],
        stop: 'content_filter',
        promptBlocked: 'SAFETY',
        usage: usage(5, 0),
      },
      ctx,
    ) as any;
    expect(res).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [],
    });
  });

  it('streamed text', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ', world' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(10, 3, 2) },
    ];
    const got = await finalOf(events);
    expect(got).toMatchObject({
      id: 'resp_msg_01abc',
      model: 'claude-sonnet-4-5',
      status: 'completed',
      output_text: 'Hello, world',
    });
    expect(got.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 3,
      total_tokens: 13,
      input_tokens_details: { cached_tokens: 2 },
    });
    // The exact lifecycle Codex reads.
    expect(sseEvents(encodeEvents(events)).map((f) => f.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('streamed thinking (two blocks), text, then parallel calls with interleaved args', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'thinking_signature', signature: 'anthropic-sig', format: 'anthropic' },
      { type: 'thinking', text: 'Second block.' },
      { type: 'thinking_signature', signature: 'enc-2', format: 'responses' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_call', index: 1, id: 'toolu_b', name: 'time' },
      { type: 'tool_args', index: 1, delta: '{"tz":"CET"' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_args', index: 1, delta: '}' },
      { type: 'tool_call', index: 2, id: 'call_p', name: 'apply_patch', custom: true },
      { type: 'tool_args', index: 2, delta: '{"input":"*** Begin\\n' },
      { type: 'tool_args', index: 2, delta: '*** End"}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9, 0, 4) },
    ];
    serveStream(events);
    const deltas: string[] = [];
    const stream = sdk.client.responses.stream(params);
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(`${e.output_index}:${e.delta}`));
    const got = await stream.finalResponse();
    expect(got.output.map((o) => o.type)).toEqual([
      'reasoning',
      'reasoning',
      'message',
      'function_call',
      'function_call',
      'custom_tool_call',
    ]);
    expect(got.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Two plus two.' }] });
    expect(got.output[0]).not.toHaveProperty('encrypted_content');
    expect(got.output[1]).toMatchObject({ summary: [{ text: 'Second block.' }], encrypted_content: 'enc-2' });
    expect(got.output_text).toBe('Let me check.');
    expect(got.output.slice(3)).toMatchObject([
      { call_id: 'toolu_a', name: 'weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { call_id: 'toolu_b', name: 'time', arguments: '{"tz":"CET"}', status: 'completed' },
      { call_id: 'call_p', name: 'apply_patch', input: '*** Begin\n*** End', status: 'completed' },
    ]);
    expect(deltas).toEqual(['3:{"city":', '4:{"tz":"CET"', '3:"Paris"}', '4:}']);
    expect(got.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 4 } });
  });

  it('a custom tool a chat upstream called as a function comes back as a custom_tool_call (ctx.customTools)', async () => {
    const c: CodecContext = { ...streamCtx, customTools: ['apply_patch'] };
    const events: HubEvent[] = [
      start,
      { type: 'tool_call', index: 0, id: 'call_x', name: 'apply_patch' },
      { type: 'tool_args', index: 0, delta: '{"input": "*** Begin Patch\\n' },
      { type: 'tool_args', index: 0, delta: '*** End Patch"}' },
      { type: 'finish', stop: 'tool_calls' },
    ];
    const enc = responsesCodec.streamEncoder(c);
    const sse = events.map((e) => enc.push(e)).join('') + enc.end();
    checkLifecycle(sseEvents(sse));
    upstream.reply = { status: 200, type: 'text/event-stream', body: sse };
    const got = await sdk.client.responses.stream(params).finalResponse();
    expect(got.output).toMatchObject([
      {
        type: 'custom_tool_call',
        call_id: 'call_x',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** End Patch',
      },
    ]);
    const whole = responsesCodec.encodeResponse(
      {
        id: 'r',
        model: 'm',
        created: 1,
        parts: [{ type: 'tool_call', id: 'call_y', name: 'apply_patch', args: '{"input":"p"}' }],
        stop: 'tool_calls',
        usage: usage(1, 1),
      },
      c,
    ) as any;
    expect(whole.output).toMatchObject([{ type: 'custom_tool_call', call_id: 'call_y', input: 'p' }]);
  });

  it('encrypted reasoning without summary text is an item of its own; redacted thinking is left out', async () => {
    const got = await finalOf([
      start,
      { type: 'thinking_signature', signature: 'enc-only', format: 'responses' },
      { type: 'redacted_thinking', data: 'xx' },
      { type: 'tool_call', index: 0, id: 'call_1', name: 'f' },
      { type: 'finish', stop: 'tool_calls' },
    ]);
    expect(got.output).toMatchObject([
      { type: 'reasoning', summary: [], encrypted_content: 'enc-only' },
      { type: 'function_call', call_id: 'call_1', arguments: '{}' },
    ]);
  });

  it('a refusal, and usage before or after finish', async () => {
    for (const order of ['before', 'after'] as const) {
      const u: HubEvent = { type: 'usage', usage: usage(30, 7, 4, 2) };
      const fin: HubEvent = { type: 'finish', stop: 'end' };
      const got = await finalOf([
        start,
        { type: 'refusal', text: 'I can’t help with that.' },
        ...(order === 'before' ? [u, fin] : [fin, u]),
      ]);
      expect((got.output[0] as any).content).toMatchObject([
        { type: 'refusal', refusal: 'I can’t help with that.' },
      ]);
      expect(got.usage).toMatchObject({ input_tokens: 30, output_tokens: 7 });
    }
  });

  it('a stream cut by max tokens ends with response.incomplete', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'partial' },
      { type: 'finish', stop: 'max_tokens' },
    ];
    const frames = sseEvents(encodeEvents(events));
    expect(frames.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    expect(frames.at(-2)).toMatchObject({
      type: 'response.output_item.done',
      item: { status: 'incomplete' },
    });
    const got = await finalOf(events);
    expect(got.output_text).toBe('partial');
  });

  it('Responses opaque items go back as items; other formats’ are dropped', async () => {
    const image = { id: 'ig_1', type: 'image_generation_call', status: 'completed', result: 'UklGR' };
    const got = await finalOf([
      start,
      { type: 'opaque', format: 'responses', value: image },
      { type: 'opaque', format: 'anthropic', value: { type: 'web_search_tool_result' } },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.output).toEqual([image]);
  });

  it('events without a start still open the response first', () => {
    const frames = sseEvents(encodeEvents([{ type: 'text', text: 'x' }]));
    expect(frames[0]).toMatchObject({
      type: 'response.created',
      response: { id: expect.stringMatching(/^resp_/), status: 'in_progress' },
    });
    expect(frames.at(-1).type).toBe('response.completed');
  });

  it('an error mid-stream: an error event and response.failed; the client gets an APIError', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'partial' },
      { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded' } },
      { type: 'text', text: 'ignored' },
    ];
    const enc = responsesCodec.streamEncoder(streamCtx);
    const sse = events.map((e) => enc.push(e)).join('') + enc.end();
    const frames = sseEvents(sse);
    expect(frames.slice(-2)).toMatchObject([
      { type: 'error', code: 'overloaded', error: { type: 'server_error', code: 'overloaded' } },
      {
        type: 'response.failed',
        response: {
          status: 'failed',
          error: { code: 'overloaded', message: expect.stringContaining('Overloaded') },
        },
      },
    ]);
    expect(sse).not.toContain('ignored');
    upstream.reply = { status: 200, type: 'text/event-stream', body: sse };
    const err = await sdk.client.responses
      .stream(params)
      .finalResponse()
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain('Overloaded');
    // And our own decoder reads it back as the same kind of error.
    expect(decodeLines(frames.map((f) => JSON.stringify(f))).at(-1)).toMatchObject({
      type: 'error',
      error: { kind: 'overloaded' },
    });
  });

  it('an error body reaches the client with its status and type', async () => {
    const { status, body } = responsesCodec.encodeError(
      { status: 429, kind: 'quota', message: 'You exceeded your current quota' },
      'req-9',
    );
    upstream.reply = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await sdk.client.responses.create(params).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(err.message).toContain('req-9');
  });
});
