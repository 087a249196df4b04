import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { anthropicCodec } from '../../src/relay/formats/anthropic/index.ts';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubResponse,
  HubStop,
  HubUsage,
} from '../../src/relay/formats/hub.ts';
import { RelayError } from '../../src/relay/relay-error.ts';
import { sdkOnCannedUpstream } from './canned-upstream.ts';
import { decodeWith, encodeWith, foldEvents } from './codec-answers.ts';
export const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
export const streamCtx: CodecContext = { ...ctx, stream: true };

export const usage = (input: number, output: number, more: Partial<HubUsage> = {}): HubUsage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  ...more,
});

export interface Call {
  id: string;
  name: string;
  args: string;
}

/** What a client would see of an answer: its texts, thinking, signatures, calls, stop and usage. */
export interface Answer {
  id?: string;
  text: string;
  thinking: string;
  signatures: string[];
  redacted: string[];
  calls: Call[];
  opaque: unknown[];
  stop?: HubStop;
  stopSequence?: string;
  usage?: HubUsage;
}

export const emptyAnswer = (): Answer => ({
  text: '',
  thinking: '',
  signatures: [],
  redacted: [],
  calls: [],
  opaque: [],
});

export function answerOfParts(parts: HubPart[]): Answer {
  const a = emptyAnswer();
  for (const p of parts) {
    if (p.type === 'text') a.text += p.text;
    else if (p.type === 'thinking') {
      a.thinking += p.text;
      if (p.signature) a.signatures.push(`${p.signatureFormat}:${p.signature}`);
      if (p.redacted) a.redacted.push(p.redacted);
    } else if (p.type === 'tool_call') a.calls.push({ id: p.id, name: p.name, args: p.args });
    else if (p.type === 'opaque') a.opaque.push(p.value);
  }
  return a;
}

export const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  ...(r.stopSequence ? { stopSequence: r.stopSequence } : {}),
  usage: r.usage,
});

export const answerOfEvents = (events: HubEvent[]): Answer =>
  foldEvents(events, emptyAnswer(), {
    call: (e) => ({ id: e.id, name: e.name, args: '' }),
    other(a, e) {
      if (e.type === 'thinking_signature') a.signatures.push(`${e.format}:${e.signature}`);
      else if (e.type === 'redacted_thinking') a.redacted.push(e.data);
      else if (e.type === 'opaque') a.opaque.push(e.value);
      else if (e.type === 'finish' && e.stopSequence) a.stopSequence = e.stopSequence;
    },
  });

/** Replays a recorded stream through the decoder as Anthropic frames it (event name = the payload's type). */
export function decodeLines(lines: string[]): HubEvent[] {
  return decodeWith(
    anthropicCodec,
    streamCtx,
    lines.map((data) => ({ event: JSON.parse(data).type, data })),
  );
}

/** Runs hub events through the encoder and returns its SSE bytes. */
export function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  return encodeWith(anthropicCodec, events, c);
}

/** The frames of SSE text as {event, payload}, checking each frame's event name equals its payload type. */
export function frames(sse: string): Array<{ event: string; data: any }> {
  return sse
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      const m = /^event: (.+)\ndata: (.*)$/s.exec(f);
      if (!m) throw new Error(`not an SSE frame with an event name: ${f}`);
      const data = JSON.parse(m[2]);
      expect(data.type).toBe(m[1]);
      return { event: m[1], data };
    });
}

/** Checks the block structure of an encoded stream: in order, never interleaved, every block closed once. */
export function checkBlocks(sse: string) {
  const fs = frames(sse);
  expect(fs[0].event).toBe('message_start');
  expect(fs.at(-1)?.event).toBe('message_stop');
  expect(fs.at(-2)?.event).toBe('message_delta');
  let open: number | null = null;
  let next = 0;
  const inputs = new Map<number, string>();
  for (const { event, data } of fs) {
    if (event === 'content_block_start') {
      expect(open).toBeNull();
      expect(data.index).toBe(next++);
      open = data.index;
      if (data.content_block.type === 'tool_use') {
        expect(data.content_block.input).toEqual({});
        inputs.set(data.index, '');
      }
      if (data.content_block.type === 'text') expect(data.content_block.text).toBe('');
    } else if (event === 'content_block_delta') {
      expect(data.index).toBe(open);
      if (data.delta.type === 'text_delta') expect(data.delta.text).not.toBe('');
      if (data.delta.type === 'input_json_delta')
        inputs.set(data.index, (inputs.get(data.index) ?? '') + data.delta.partial_json);
    } else if (event === 'content_block_stop') {
      expect(data.index).toBe(open);
      open = null;
    }
  }
  expect(open).toBeNull();
  // Every tool block's streamed input is valid JSON (or nothing: input {} from the start event).
  for (const json of inputs.values()) if (json) expect(() => JSON.parse(json)).not.toThrow();
  return fs;
}

/** SSE text with every frame's payload parsed and stringified again (the bytes an object-built frame has). */
export function restringified(sse: string): string {
  return frames(sse)
    .map((f) => `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`)
    .join('');
}

/** A request body decoded as the gateway's Anthropic route does. */
export const decode = (body: Record<string, unknown>) => anthropicCodec.decodeRequest(body, ctx);
export const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
export const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]).toString('base64');
export const base = { model: 'claude-sonnet-4-5', max_tokens: 1024 };
export const user = (content: unknown) => ({ role: 'user', content });
/** The 400 a request body is refused with (fails the test when it is accepted). */
export const badRequestOf = (body: Record<string, unknown>): RelayError => {
  try {
    decode(body);
  } catch (e) {
    expect(e).toBeInstanceOf(RelayError);
    expect((e as RelayError).status).toBe(400);
    return e as RelayError;
  }
  throw new Error('expected a 400');
};

/** The official Anthropic client, reading what the encoder wrote from a loopback upstream. */
export function anthropicClient() {
  const { sdk, upstream, serveStream } = sdkOnCannedUpstream(
    (url) => new Anthropic({ apiKey: 'sk-ant-test', baseURL: url, maxRetries: 0 }),
    (events) => {
      const body = encodeEvents(events);
      checkBlocks(body);
      return body;
    },
  );
  const params = {
    model: 'gateway-model',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'hi' }],
  };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return sdk.client.messages.stream(params).finalMessage();
  };
  const serveJson = (res: HubResponse) => {
    upstream.reply = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(anthropicCodec.encodeResponse(res, ctx)),
    };
  };
  const start: HubEvent = { type: 'start', id: 'chatcmpl-abc', model: 'gpt-5', created: 1770000000 };
  return { sdk, upstream, params, serveStream, finalOf, serveJson, start };
}
