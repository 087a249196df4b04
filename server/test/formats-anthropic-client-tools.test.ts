import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import type { HubEvent } from '../src/relay/formats/hub.ts';
import { anthropicClient, encodeEvents, frames, streamCtx, usage } from './support/anthropic-codec.ts';
import { fixtureChunks } from './support/fixtures.ts';

describe('anthropic codec: encoder output through the official Anthropic client', () => {
  const { sdk, upstream, params, finalOf, start } = anthropicClient();

  it('text then two parallel calls whose args arrive interleaved: one valid block each, in order', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'thinking', text: 'hmm' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'call_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_call', index: 1, id: 'call_b', name: 'time' },
      { type: 'tool_args', index: 1, delta: '{"tz":"CET"' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_args', index: 1, delta: '}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9) },
    ];
    const got = await finalOf(events);
    expect(got.stop_reason).toBe('tool_use');
    expect(got.content).toMatchObject([
      { type: 'thinking', thinking: 'hmm', signature: '' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_b', name: 'time', input: { tz: 'CET' } },
    ]);
    // The first call streams live; the second waits until the first is complete JSON.
    const fs = frames(encodeEvents(events));
    const deltas = fs
      .filter((f) => f.data.delta?.type === 'input_json_delta')
      .map((f) => [f.data.index, f.data.delta.partial_json]);
    expect(deltas).toEqual([
      [2, '{"city":'],
      [2, '"Paris"}'],
      [3, '{"tz":"CET"'],
      [3, '}'],
    ]);
  });

  it('three calls opened before any args (Gemini-style), args interleaved and a no-args call', async () => {
    const got = await finalOf([
      start,
      { type: 'tool_call', index: 0, id: 'c0', name: 'a' },
      { type: 'tool_call', index: 1, id: 'c1', name: 'b' },
      { type: 'tool_call', index: 2, id: 'c2', name: 'c' },
      { type: 'tool_args', index: 2, delta: '{"z":' },
      { type: 'tool_args', index: 1, delta: '{"y":2}' },
      { type: 'tool_args', index: 2, delta: '3}' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.stop_reason).toBe('tool_use');
    expect(got.content).toMatchObject([
      { type: 'tool_use', id: 'c0', name: 'a', input: {} },
      { type: 'tool_use', id: 'c1', name: 'b', input: { y: 2 } },
      { type: 'tool_use', id: 'c2', name: 'c', input: { z: 3 } },
    ]);
  });

  it('sequential calls with the last fragment right before finish and usage after (chat upstream)', async () => {
    const got = await finalOf([
      start,
      { type: 'tool_call', index: 0, id: 'call_x', name: 'f' },
      { type: 'tool_args', index: 0, delta: '{"a":' },
      { type: 'tool_args', index: 0, delta: '1}' },
      { type: 'tool_call', index: 1, id: 'call_y', name: 'g' },
      { type: 'tool_args', index: 1, delta: '{"b":' },
      { type: 'tool_args', index: 1, delta: '2}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(11, 5) },
    ]);
    expect(got.content).toMatchObject([
      { type: 'tool_use', id: 'call_x', input: { a: 1 } },
      { type: 'tool_use', id: 'call_y', input: { b: 2 } },
    ]);
    expect(got.usage).toMatchObject({ input_tokens: 11, output_tokens: 5 });
  });

  it('redacted thinking and Anthropic server blocks stream as whole blocks; other formats\u2019 opaque parts do not', async () => {
    const got = await finalOf([
      start,
      { type: 'redacted_thinking', data: 'RED' },
      {
        type: 'opaque',
        format: 'anthropic',
        value: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      },
      { type: 'opaque', format: 'responses', value: { type: 'web_search_call' } },
      { type: 'text', text: 'done' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.content).toMatchObject([
      { type: 'redacted_thinking', data: 'RED' },
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      { type: 'text', text: 'done' },
    ]);
  });

  it('an empty answer is still a complete message', async () => {
    const got = await finalOf([start, { type: 'finish', stop: 'end' }]);
    expect(got.content).toEqual([]);
    expect(got.stop_reason).toBe('end_turn');
    expect(got.usage.output_tokens).toBe(0);
  });

  it('a chat upstream stream (recorded) reaches an Anthropic client whole', async () => {
    const dec = chatCodec.streamDecoder(streamCtx);
    const hub: HubEvent[] = [];
    for (const line of fixtureChunks('openai/chat/text-then-tool-call.chunks.txt'))
      hub.push(...dec.push({ data: line }));
    hub.push(...dec.push({ data: '[DONE]' }), ...dec.end());
    const got = await finalOf(hub);
    expect(got.stop_reason).toBe('tool_use');
    expect(got.content.at(-1)).toMatchObject({
      type: 'tool_use',
      id: 'call_NZa7xqfefoaMI2YYHowVXVlU',
      name: 'weather',
      input: {},
    });
    expect(got.usage).toMatchObject({ input_tokens: 58, output_tokens: 12 });
  });

  it('a DeepSeek reasoning + tool stream reaches an Anthropic client with thinking and valid input', async () => {
    const dec = chatCodec.streamDecoder(streamCtx);
    const hub: HubEvent[] = [];
    for (const line of fixtureChunks('deepseek/chat/reasoning-tool-call.chunks.txt'))
      hub.push(...dec.push({ data: line }));
    hub.push(...dec.push({ data: '[DONE]' }), ...dec.end());
    const got = await finalOf(hub);
    expect(got.content[0]).toMatchObject({ type: 'thinking', signature: '' });
    expect(got.content.at(-1)).toMatchObject({
      type: 'tool_use',
      name: 'weather',
      input: { location: 'San Francisco' },
    });
    expect(got.usage).toMatchObject({ input_tokens: 19, cache_read_input_tokens: 320, output_tokens: 83 });
  });

  it('an error mid-stream reaches the client as an APIError of its type; nothing follows it', async () => {
    const enc = anthropicCodec.streamEncoder(streamCtx);
    let body = enc.push(start) + enc.push({ type: 'text', text: 'partial' });
    body += enc.push({ type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded' } });
    body += enc.push({ type: 'text', text: 'more' }) + enc.end();
    const fs = frames(body);
    expect(fs.at(-1)).toEqual({
      event: 'error',
      data: {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded (request id: req-test)' },
        request_id: 'req-test',
      },
    });
    upstream.reply = { status: 200, type: 'text/event-stream', body };
    const err = await sdk.client.messages
      .stream(params)
      .finalMessage()
      .catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.message).toContain('Overloaded');
    expect(err.error).toMatchObject({ error: { type: 'overloaded_error' } });
  });

  it.each([
    [{ status: 400, kind: 'invalid_request' as const }, Anthropic.BadRequestError, 'invalid_request_error'],
    [{ status: 401, kind: 'authentication' as const }, Anthropic.AuthenticationError, 'authentication_error'],
    [{ status: 403, kind: 'permission' as const }, Anthropic.PermissionDeniedError, 'permission_error'],
    [{ status: 404, kind: 'not_found' as const }, Anthropic.NotFoundError, 'not_found_error'],
    [{ status: 429, kind: 'rate_limit' as const }, Anthropic.RateLimitError, 'rate_limit_error'],
    [{ status: 0, kind: 'server' as const }, Anthropic.InternalServerError, 'api_error'],
    [{ status: 0, kind: 'overloaded' as const }, Anthropic.InternalServerError, 'overloaded_error'],
  ])('an error body %o reaches the client as its error class', async (e, cls, type) => {
    const { status, body } = anthropicCodec.encodeError({ ...e, message: 'went wrong' }, 'req-9');
    upstream.reply = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await sdk.client.messages.create(params).catch((x) => x);
    expect(err).toBeInstanceOf(cls);
    expect(err.error).toEqual({
      type: 'error',
      error: { type, message: 'went wrong (request id: req-9)' },
      request_id: 'req-9',
    });
  });
});
