import OpenAI from 'openai';
import { expect } from 'vitest';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubResponse,
  HubStop,
  HubUsage,
} from '../../src/relay/formats/hub.ts';
import { responsesCodec } from '../../src/relay/formats/responses/index.ts';
import { sdkOnCannedUpstream } from './canned-upstream.ts';
import { decodeWith, encodeWith, foldEvents, usage } from './codec-answers.ts';
import { fixtureChunks } from './fixtures.ts';
export const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
export const streamCtx: CodecContext = { ...ctx, stream: true };
export const DIR = 'openai/responses';

export { usage };

export interface Call {
  id: string;
  name: string;
  args: string;
  custom?: boolean;
}

/** What a client would see of an answer: texts, thinking, signatures, calls, opaque items, stop, usage. */
export interface Answer {
  id?: string;
  text: string;
  thinking: string;
  signatures: string[];
  refusal: string;
  calls: Call[];
  opaque: string[];
  stop?: HubStop;
  usage?: HubUsage;
}

export const emptyAnswer = (): Answer => ({
  text: '',
  thinking: '',
  signatures: [],
  refusal: '',
  calls: [],
  opaque: [],
});

export function answerOfParts(parts: HubPart[]): Answer {
  const a = emptyAnswer();
  for (const p of parts) {
    if (p.type === 'text') a.text += p.text;
    else if (p.type === 'thinking') {
      a.thinking += p.text;
      if (p.signature) a.signatures.push(p.signature);
    } else if (p.type === 'refusal') a.refusal += p.text;
    else if (p.type === 'tool_call')
      a.calls.push({ id: p.id, name: p.name, args: p.args, ...(p.custom ? { custom: true } : {}) });
    else if (p.type === 'opaque') a.opaque.push((p.value as any).type);
  }
  return a;
}

export const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
});

export const answerOfEvents = (events: HubEvent[]): Answer =>
  foldEvents(events, emptyAnswer(), {
    call: (e) => ({ id: e.id, name: e.name, args: '', ...(e.custom ? { custom: true } : {}) }),
    other(a, e) {
      if (e.type === 'thinking_signature') a.signatures.push(e.signature);
      else if (e.type === 'refusal') a.refusal += e.text;
      else if (e.type === 'opaque') a.opaque.push((e.value as any).type);
    },
  });

/** Replays a recorded stream through the decoder, one event at a time. */
export function decodeLines(lines: string[]): HubEvent[] {
  return decodeWith(
    responsesCodec,
    streamCtx,
    lines.map((data) => ({ event: JSON.parse(data).type, data })),
  );
}

/** Runs hub events through the encoder and returns its SSE bytes. */
export function encodeEvents(events: HubEvent[]): string {
  return encodeWith(responsesCodec, events, streamCtx);
}

/** The events of SSE text, each checked to have an event name equal to its payload's type. */
export function sseEvents(sse: string): any[] {
  return sse
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      const m = /^event: (.+)\ndata: (.+)$/s.exec(f);
      if (!m) throw new Error(`not an SSE frame: ${f}`);
      const data = JSON.parse(m[2]);
      expect(data.type).toBe(m[1]);
      return data;
    });
}

/** The answer a recorded stream's final response holds (its output items, read directly). */
export function recordedFinal(file: string) {
  const last = JSON.parse(fixtureChunks(file).at(-1)!);
  const a = emptyAnswer();
  for (const item of last.response.output) {
    if (item.type === 'message')
      for (const c of item.content) {
        if (c.type === 'output_text') a.text += c.text;
        if (c.type === 'refusal') a.refusal += c.refusal;
      }
    else if (item.type === 'reasoning') a.thinking += item.summary.map((s: any) => s.text).join('\n\n');
    else if (item.type === 'function_call')
      a.calls.push({ id: item.call_id, name: item.name, args: item.arguments });
    else a.opaque.push(item.type);
  }
  // Encrypted content is re-encrypted for every event: the stream's is the one its item was done with.
  for (const line of fixtureChunks(file)) {
    const e = JSON.parse(line);
    if (e.type === 'response.output_item.done' && e.item.encrypted_content)
      a.signatures.push(e.item.encrypted_content);
  }
  return { answer: a, response: last.response };
}

/**
 * The lifecycle rules clients rely on: increasing sequence numbers from 0, created then in_progress first,
 * deltas only inside an added and not yet done item, content parts and summary parts opened before their
 * deltas, and a final response whose output repeats every item as it was done.
 */
export function checkLifecycle(frames: any[]) {
  expect(frames.map((f) => f.sequence_number)).toEqual(frames.map((_, i) => i));
  expect(frames[0].type).toBe('response.created');
  expect(frames[1].type).toBe('response.in_progress');
  const last = frames.at(-1);
  expect(['response.completed', 'response.incomplete', 'response.failed']).toContain(last.type);
  expect(last.response).toMatchObject({
    id: frames[0].response.id,
    object: 'response',
    model: expect.any(String),
  });
  const open = new Map<number, any>();
  const done = new Map<number, any>();
  const parts = new Set<string>();
  for (const f of frames.slice(2, -1)) {
    if (f.type === 'response.output_item.added') {
      expect(f.output_index).toBe(open.size + done.size);
      expect(f.item.id).toEqual(expect.any(String));
      open.set(f.output_index, f.item);
      continue;
    }
    if (f.type === 'response.output_item.done') {
      expect(open.get(f.output_index)?.id).toBe(f.item.id);
      open.delete(f.output_index);
      done.set(f.output_index, f.item);
      continue;
    }
    if (f.type === 'error') continue;
    const item = open.get(f.output_index);
    expect(item, `${f.type} outside an open item`).toBeDefined();
    expect(f.item_id).toBe(item.id);
    const key = `${f.output_index}/${f.content_index ?? f.summary_index}`;
    if (f.type.endsWith('part.added')) parts.add(key);
    else if (/output_text|refusal|summary_text/.test(f.type)) expect(parts.has(key)).toBe(true);
  }
  expect(open.size).toBe(0);
  if (last.type !== 'response.failed') {
    expect(last.response.output).toEqual([...done.keys()].sort((a, b) => a - b).map((k) => done.get(k)));
    expect(last.response.usage).toMatchObject({
      input_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: expect.any(Number) },
      output_tokens: expect.any(Number),
      output_tokens_details: { reasoning_tokens: expect.any(Number) },
      total_tokens: expect.any(Number),
    });
  }
}

/** The official openai client's Responses API, reading what the encoder wrote from a loopback upstream. */
export function responsesClient() {
  const { sdk, upstream, serveStream } = sdkOnCannedUpstream(
    (url) => new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }),
    (events) => {
      const sse = encodeEvents(events);
      checkLifecycle(sseEvents(sse));
      return sse;
    },
  );
  const params = { model: 'gateway-model', input: 'hi' };
  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return sdk.client.responses.stream(params).finalResponse();
  };
  return { sdk, upstream, params, start, serveStream, finalOf };
}
