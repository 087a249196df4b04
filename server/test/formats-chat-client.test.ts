import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import type { HubEvent, HubResponse } from '../src/relay/formats/hub.ts';
import { chatClient, ctx, encodeEvents, sseData, usage } from './support/chat-codec.ts';
import { claudeAnswerHead, signedThinking, twoCalls } from './support/hub-answers.ts';

describe('chat codec: encoder output through the official openai client', () => {
  const { sdk, upstream, params, serveStream, finalOf, start } = chatClient();

  it('a plain answer with thinking, text and two tool calls (one with a Gemini signature)', async () => {
    const hub: HubResponse = {
      ...claudeAnswerHead(),
      parts: [signedThinking(), { type: 'text', text: 'Checking both.' }, ...twoCalls()],
      stop: 'tool_calls',
      usage: usage(100, 40, 60, 10, 20),
    };
    upstream.reply = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(chatCodec.encodeResponse(hub, ctx)),
    };
    const got = await sdk.client.chat.completions.create(params);
    expect(got.id).toBe('msg_01abc');
    expect(got.choices[0].finish_reason).toBe('tool_calls');
    expect(got.choices[0].message.content).toBe('Checking both.');
    expect((got.choices[0].message as any).reasoning_content).toBe('Let me look.');
    expect(got.choices[0].message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
      { id: packCallId('fc_2', 'gem-sig'), type: 'function', function: { name: 'time', arguments: '{}' } },
    ]);
    expect(got.usage).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 40,
      total_tokens: 140,
      prompt_tokens_details: { cached_tokens: 60 },
      completion_tokens_details: { reasoning_tokens: 10 },
    });
    expect(JSON.stringify(got)).not.toContain('anthropic-sig');
  });

  it('streamed text', async () => {
    const got = await finalOf([
      start,
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ', world' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(10, 3) },
    ]);
    expect(got.id).toBe('msg_01abc');
    expect(got.model).toBe('claude-sonnet-4-5');
    expect(got.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Hello, world' },
    });
    expect(got.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });

  it('streamed thinking then text: reasoning_content deltas, then content', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'thinking_signature', signature: 'sig', format: 'anthropic' },
      { type: 'text', text: '4' },
      { type: 'finish', stop: 'end' },
    ];
    const payloads = sseData(encodeEvents(events));
    const deltas = payloads.slice(0, -1).flatMap((p) => JSON.parse(p).choices.map((c: any) => c.delta));
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Two plus two.');
    expect(payloads.join('')).not.toContain('sig"');
    const got = await finalOf(events);
    expect(got.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: '4' } });
  });

  it('streamed text then two parallel tool calls, args split, last fragment right before finish', async () => {
    const got = await finalOf([
      start,
      { type: 'thinking', text: 'hmm' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_call', index: 1, id: 'toolu_b', name: 'time' },
      { type: 'tool_args', index: 1, delta: '{"tz":"CET"' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_args', index: 1, delta: '}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9) },
    ]);
    expect(got.choices[0].finish_reason).toBe('tool_calls');
    expect(got.choices[0].message.content).toBe('Let me check.');
    expect(got.choices[0].message.tool_calls).toEqual([
      { id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
      { id: 'toolu_b', type: 'function', function: { name: 'time', arguments: '{"tz":"CET"}' } },
    ]);
  });

  it('tool-call indexes count tool calls only, even when the hub starts at another index', async () => {
    const got = await finalOf([
      start,
      { type: 'tool_call', index: 3, id: 'call_z', name: 'f' },
      { type: 'tool_args', index: 3, delta: '{}' },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.choices[0].finish_reason).toBe('tool_calls');
    expect(got.choices[0].message.tool_calls).toHaveLength(1);
  });

  it('usage before finish and after finish both reach the client', async () => {
    for (const order of ['before', 'after'] as const) {
      const u: HubEvent = { type: 'usage', usage: usage(30, 7, 4, 2) };
      const fin: HubEvent = { type: 'finish', stop: 'max_tokens' };
      const got = await finalOf([
        start,
        { type: 'text', text: 'x' },
        ...(order === 'before' ? [u, fin] : [fin, u]),
      ]);
      expect(got.choices[0].finish_reason).toBe('length');
      expect(got.usage).toMatchObject({
        prompt_tokens: 30,
        completion_tokens: 7,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      });
    }
  });

  it('an error mid-stream reaches the client as an APIError with its message', async () => {
    serveStream([
      start,
      { type: 'text', text: 'partial' },
      { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded' } },
    ]);
    const err = await sdk.client.chat.completions
      .stream(params)
      .finalChatCompletion()
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain('Overloaded');
    expect(err.error).toMatchObject({ type: 'server_error', code: 'overloaded' });
  });

  it('an error body reaches the client with its status and type', async () => {
    const { status, body } = chatCodec.encodeError(
      { status: 429, kind: 'quota', message: 'You exceeded your current quota' },
      'req-9',
    );
    upstream.reply = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await sdk.client.chat.completions.create(params).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe('insufficient_quota');
    expect(err.message).toContain('You exceeded your current quota (request id: req-9)');
  });
});
