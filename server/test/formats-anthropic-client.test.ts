import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import { anthropicClient, frames, usage } from './support/anthropic-codec.ts';
import { claudeAnswerHead, signedThinking, twoCalls } from './support/hub-answers.ts';

describe('anthropic codec: encoder output through the official Anthropic client', () => {
  const { sdk, upstream, params, serveStream, finalOf, serveJson, start } = anthropicClient();

  it('a whole answer: thinking (signed), text, a tool call with a Gemini signature in its id, usage', async () => {
    serveJson({
      ...claudeAnswerHead(),
      parts: [
        signedThinking(),
        { type: 'text', text: 'Checking both.' },
        { type: 'text', text: '' },
        ...twoCalls(),
      ],
      stop: 'tool_calls',
      usage: usage(1000, 40, { cacheRead: 600, cacheWrite: 100, cacheWrite1h: 200, reasoning: 10 }),
    });
    const got = await sdk.client.messages.create(params);
    expect(upstream.seen.at(-1)?.url).toBe('/v1/messages');
    expect(got.id).toBe('msg_01abc');
    expect(got.stop_reason).toBe('tool_use');
    expect(got.content).toEqual([
      { type: 'thinking', thinking: 'Let me look.', signature: 'anthropic-sig' },
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: packCallId('fc_2', 'gem-sig'), name: 'time', input: {} },
    ]);
    expect(got.usage).toMatchObject({
      input_tokens: 100,
      output_tokens: 40,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    });
  });

  it('a whole answer from another format: msg_ id, thinking with an empty signature, refusal as text, numeric usage', async () => {
    serveJson({
      id: 'chatcmpl-9',
      model: 'gpt-5',
      created: 1,
      parts: [
        { type: 'thinking', text: 'hmm', signature: 'enc', signatureFormat: 'responses' },
        { type: 'refusal', text: 'I cannot help with that.' },
        { type: 'image', data: 'AAAA', mediaType: 'image/png' },
      ],
      stop: 'content_filter',
      usage: usage(0, 0),
    });
    const got = await sdk.client.messages.create(params);
    expect(got.id).toBe('msg_chatcmpl-9');
    expect(got.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: '' },
      { type: 'text', text: 'I cannot help with that.' },
    ]);
    expect(got.stop_reason).toBe('refusal');
    expect(got.usage.input_tokens).toBe(0);
    expect(got.usage.output_tokens).toBe(0);
  });

  it('a blocked prompt: no content, stop_reason refusal', async () => {
    serveJson({
      id: 'x',
      model: 'gemini',
      created: 1,
      parts: [],
      stop: 'end',
      usage: usage(5, 0),
      promptBlocked: 'SAFETY',
    });
    const got = await sdk.client.messages.create(params);
    expect(got.content).toEqual([]);
    expect(got.stop_reason).toBe('refusal');
  });

  it('stop sequences, pause_turn and max_tokens reach the client', async () => {
    for (const [stop, reason] of [
      ['stop_sequence', 'stop_sequence'],
      ['pause', 'pause_turn'],
      ['max_tokens', 'max_tokens'],
      ['end', 'end_turn'],
    ] as const) {
      serveJson({
        id: 'm',
        model: 'm',
        created: 1,
        parts: [{ type: 'text', text: 'a' }],
        stop,
        stopSequence: 'END',
        usage: usage(1, 1),
      });
      const got = await sdk.client.messages.create(params);
      expect(got.stop_reason).toBe(reason);
      expect(got.stop_sequence).toBe(stop === 'stop_sequence' ? 'END' : null);
    }
  });

  it('streamed text: message_start held for the input counts, message_delta with the totals', async () => {
    const sse = serveStream([
      start,
      { type: 'usage', usage: usage(50, 1, { cacheRead: 40 }) },
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ', world' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(50, 3, { cacheRead: 40 }) },
    ]);
    const fs = frames(sse);
    expect(fs.map((f) => f.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(fs[0].data.message).toMatchObject({
      id: 'msg_chatcmpl-abc',
      model: 'gpt-5',
      content: [],
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 0,
        output_tokens: 1,
      },
    });
    const got = await sdk.client.messages.stream(params).finalMessage();
    expect(got.content).toMatchObject([{ type: 'text', text: 'Hello, world' }]);
    expect(got.content).toHaveLength(1);
    expect(got.stop_reason).toBe('end_turn');
    expect(got.usage).toMatchObject({ input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 40 });
  });

  it('usage unknown at the start is zeros there and real in message_delta (OpenAI upstreams)', async () => {
    const sse = serveStream([
      start,
      { type: 'text', text: 'x' },
      { type: 'finish', stop: 'max_tokens' },
      { type: 'usage', usage: usage(30, 7, { cacheRead: 4, reasoning: 2 }) },
    ]);
    expect(frames(sse)[0].data.message.usage).toEqual({
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    });
    const got = await sdk.client.messages.stream(params).finalMessage();
    expect(got.stop_reason).toBe('max_tokens');
    expect(got.usage).toMatchObject({ input_tokens: 26, output_tokens: 7, cache_read_input_tokens: 4 });
  });

  it('streamed thinking with an Anthropic signature, then text', async () => {
    const got = await finalOf([
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'thinking_signature', signature: 'sig-1', format: 'anthropic' },
      { type: 'text', text: '4' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.content).toMatchObject([
      { type: 'thinking', thinking: 'Two plus two.', signature: 'sig-1' },
      { type: 'text', text: '4' },
    ]);
  });

  it("another format's signature is not sent; a second thought after a signature is a new block", async () => {
    const sse = serveStream([
      start,
      { type: 'thinking', text: 'gemini thought' },
      { type: 'thinking_signature', signature: 'gem-sig', format: 'gemini' },
      { type: 'thinking', text: 'more' },
      { type: 'thinking_signature', signature: 'a-sig', format: 'anthropic' },
      { type: 'thinking', text: 'again' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(sse).not.toContain('gem-sig');
    const got = await sdk.client.messages.stream(params).finalMessage();
    expect(got.content).toMatchObject([
      { type: 'thinking', thinking: 'gemini thoughtmore', signature: 'a-sig' },
      { type: 'thinking', thinking: 'again', signature: '' },
    ]);
  });

  it('a signature with no thinking text (display omitted) still gets its thinking block', async () => {
    const got = await finalOf([
      start,
      { type: 'thinking_signature', signature: 'only-sig', format: 'anthropic' },
      { type: 'text', text: 'ok' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.content).toMatchObject([
      { type: 'thinking', thinking: '', signature: 'only-sig' },
      { type: 'text', text: 'ok' },
    ]);
  });
});
