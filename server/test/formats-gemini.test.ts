import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, ThinkingLevel } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/errors.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import { PartialArgsWriter } from '../src/relay/formats/gemini/partial-args.ts';
import { toGeminiSchema } from '../src/relay/formats/gemini/schema.ts';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubRequest,
  HubResponse,
  HubStop,
  HubUsage,
} from '../src/relay/formats/hub.ts';
import { fixtureChunks, fixtureJson, fixtureText } from './support/fixtures.ts';

const ctx: CodecContext = { model: 'gemini-2.5-flash', stream: false, requestId: 'req-test' };
const streamCtx: CodecContext = { ...ctx, stream: true };
const DIR = 'google/generate-content/';

const usage = (input: number, output: number, cacheRead = 0, reasoning = 0, cacheWrite = 0): HubUsage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  cacheWrite1h: 0,
  reasoning,
});

interface Call {
  id: string;
  name: string;
  args: string;
  signature?: string;
}

/** What a client would see of an answer: its texts, thinking, calls (with signatures), stop and usage. */
interface Answer {
  id?: string;
  text: string;
  thinking: string;
  signatures: string[];
  calls: Call[];
  stop?: HubStop;
  usage?: HubUsage;
  promptBlocked?: string;
}

function answerOfParts(parts: HubPart[]): Answer {
  const a: Answer = { text: '', thinking: '', signatures: [], calls: [] };
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') a.text += p.text;
    else if (p.type === 'thinking') {
      a.thinking += p.text;
      if (p.signature) a.signatures.push(p.signature);
    } else if (p.type === 'tool_call')
      a.calls.push({
        id: p.id,
        name: p.name,
        args: p.args,
        ...(p.signature ? { signature: p.signature } : {}),
      });
  }
  return a;
}

const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
  ...(r.promptBlocked ? { promptBlocked: r.promptBlocked } : {}),
});

function answerOfEvents(events: HubEvent[]): Answer {
  const a: Answer = { text: '', thinking: '', signatures: [], calls: [] };
  const calls = new Map<number, Call>();
  for (const e of events) {
    if (e.type === 'start') a.id = e.id;
    else if (e.type === 'text' || e.type === 'refusal') a.text += e.text;
    else if (e.type === 'thinking') a.thinking += e.text;
    else if (e.type === 'thinking_signature') a.signatures.push(e.signature);
    else if (e.type === 'tool_call') {
      if (calls.has(e.index)) throw new Error(`tool_call ${e.index} opened twice`);
      calls.set(e.index, {
        id: e.id,
        name: e.name,
        args: '',
        ...(e.signature ? { signature: e.signature } : {}),
      });
    } else if (e.type === 'tool_args') {
      const c = calls.get(e.index);
      if (!c) throw new Error(`tool_args for unopened call ${e.index}`);
      c.args += e.delta;
    } else if (e.type === 'usage') a.usage = e.usage;
    else if (e.type === 'finish') {
      if (a.stop) throw new Error('finish came twice');
      a.stop = e.stop;
      if (e.promptBlocked) a.promptBlocked = e.promptBlocked;
    }
  }
  a.calls = [...calls.values()];
  return a;
}

/** Replays recorded chunk payloads through the decoder, one SSE event each. */
function decodeLines(lines: string[]): HubEvent[] {
  const dec = geminiCodec.streamDecoder(streamCtx);
  const events: HubEvent[] = [];
  for (const line of lines) events.push(...dec.push({ data: line }));
  events.push(...dec.end());
  return events;
}

/** Runs hub events through the encoder and returns its bytes. */
function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  const enc = geminiCodec.streamEncoder(c);
  return events.map((e) => enc.push(e)).join('') + enc.end();
}

/** The data payloads of SSE text framed as Google frames it (CRLF CRLF). */
const sseData = (sse: string) =>
  sse
    .split('\r\n\r\n')
    .filter((f) => f.trim())
    .map((f) => {
      expect(f.startsWith('data: ')).toBe(true);
      return f.slice('data: '.length);
    });

const chunksOf = (sse: string) => sseData(sse).map((p) => JSON.parse(p));

describe('gemini codec: recorded answers decode to the hub', () => {
  it('text.json: text with a signature on the text part, thoughts counted as output', () => {
    const res = geminiCodec.decodeResponse(fixtureJson(`${DIR}text.json`), ctx);
    const a = answerOfResponse(res);
    expect(a).toMatchObject({
      id: 'Un6LacrVMcjUxs0PmJfWoQc',
      text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
      thinking: '',
      calls: [],
      stop: 'end',
      usage: usage(9, 28 + 244, 0, 244),
    });
    expect(res.model).toBe('gemini-3-pro-preview');
    // The signature rides as an empty Gemini thinking part right after the text it came on.
    expect(res.parts).toEqual([
      { type: 'text', text: a.text },
      {
        type: 'thinking',
        text: '',
        signature: fixtureJson(`${DIR}text.json`).candidates[0].content.parts[0].thoughtSignature,
        signatureFormat: 'gemini',
      },
    ]);
  });

  it('function-call.json: STOP with a function call is tool_calls; the call gets an id and its signature', () => {
    const body = fixtureJson(`${DIR}function-call.json`);
    const res = geminiCodec.decodeResponse(body, ctx);
    expect(res.stop).toBe('tool_calls');
    expect(res.usage).toEqual(usage(29, 15 + 893, 0, 893));
    expect(res.parts).toEqual([
      {
        type: 'tool_call',
        id: expect.stringMatching(/^call_/),
        name: 'weather',
        args: '{"location":"San Francisco"}',
        signature: body.candidates[0].content.parts[0].thoughtSignature,
        signatureFormat: 'gemini',
      },
    ]);
  });

  it('two calls to the same function without ids get different ids', () => {
    const call = { functionCall: { name: 'weather', args: { city: 'Paris' } } };
    const res = geminiCodec.decodeResponse(
      { candidates: [{ content: { role: 'model', parts: [call, call] }, finishReason: 'STOP' }] },
      ctx,
    );
    const ids = res.parts.map((p) => (p as { id: string }).id);
    expect(new Set(ids).size).toBe(2);
    expect(res.stop).toBe('tool_calls');
    // A call id Gemini gives is kept.
    const given = geminiCodec.decodeResponse(
      { candidates: [{ content: { parts: [{ functionCall: { id: 'fc-1', name: 'f', args: {} } }] } }] },
      ctx,
    );
    expect(given.parts[0]).toMatchObject({ id: 'fc-1', args: '{}' });
  });

  it.each([
    ['MAX_TOKENS', 'max_tokens'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['SPII', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['STOP', 'end'],
    ['OTHER', 'end'],
  ] as const)('finishReason %s -> %s', (reason, stop) => {
    const res = geminiCodec.decodeResponse(
      { candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: reason, index: 0 }] },
      ctx,
    );
    expect(res.stop).toBe(stop);
  });

  it('a blocked prompt: no candidates, promptFeedback.blockReason -> content_filter with promptBlocked', () => {
    const res = geminiCodec.decodeResponse(
      {
        promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
        usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 },
        modelVersion: 'gemini-2.5-flash',
      },
      ctx,
    );
    expect(res).toMatchObject({ parts: [], stop: 'content_filter', promptBlocked: 'PROHIBITED_CONTENT' });
    expect(res.usage).toEqual(usage(12, 0));
  });

  it('usage: cached content read, thoughts, tool-use prompt tokens', () => {
    const res = geminiCodec.decodeResponse(
      {
        candidates: [{ content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: 1000,
          cachedContentTokenCount: 800,
          candidatesTokenCount: 20,
          thoughtsTokenCount: 30,
          toolUsePromptTokenCount: 5,
          totalTokenCount: 1055,
        },
      },
      ctx,
    );
    expect(res.usage).toEqual(usage(1005, 50, 800, 30));
  });

  it('thought parts, generated images and code execution parts', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
    const code = { executableCode: { language: 'PYTHON', code: 'print(1)' } };
    const res = geminiCodec.decodeResponse(
      {
        candidates: [
          {
            content: {
              parts: [
                { text: 'Let me think.', thought: true },
                { text: '', thought: true, thoughtSignature: 'c2ln' },
                code,
                { inlineData: { mimeType: 'image/png', data: png } },
                { text: 'Done.' },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
      ctx,
    );
    expect(res.parts).toEqual([
      { type: 'thinking', text: 'Let me think.' },
      { type: 'thinking', text: '', signature: 'c2ln', signatureFormat: 'gemini' },
      { type: 'opaque', format: 'gemini', value: code },
      { type: 'image', data: png, mediaType: 'image/png' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('an error object in a 200 answer is thrown with its status, not read as an empty answer', () => {
    const err = (() => {
      try {
        geminiCodec.decodeResponse(
          { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } },
          ctx,
        );
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RelayError);
    expect(err).toMatchObject({ status: 503, message: 'overloaded', code: 'UNAVAILABLE' });
    expect(() => geminiCodec.decodeResponse('nope', ctx)).toThrow(RelayError);
  });
});

describe('gemini codec: recorded streams decode to the hub, event by event', () => {
  it('text.chunks.txt: cumulative usage, the trailing empty part carries the signature', () => {
    const lines = fixtureChunks(`${DIR}text.chunks.txt`);
    const events = decodeLines(lines);
    const a = answerOfEvents(events);
    expect(a).toMatchObject({
      id: 'bH6LaZW8Fp_3nsEPqtaSwQ4',
      text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
      thinking: '',
      calls: [],
      stop: 'end',
      usage: usage(9, 23 + 185, 0, 185),
    });
    expect(a.signatures).toEqual([JSON.parse(lines[2]).candidates[0].content.parts[0].thoughtSignature]);
    expect(events[0]).toEqual({
      type: 'start',
      id: 'bH6LaZW8Fp_3nsEPqtaSwQ4',
      model: 'gemini-3-pro-preview',
    });
    // Usage totals go out when they change: 9+190, then 9+208 (the last chunk repeats it).
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
  });

  it('function-call.chunks.txt: a whole call in one chunk, then STOP -> tool_calls', () => {
    const lines = fixtureChunks(`${DIR}function-call.chunks.txt`);
    const a = answerOfEvents(decodeLines(lines));
    expect(a).toMatchObject({
      text: '',
      stop: 'tool_calls',
      usage: usage(29, 15 + 45, 0, 45),
      calls: [
        {
          id: expect.stringMatching(/^call_/),
          name: 'weather',
          args: '{"location":"San Francisco"}',
          signature: JSON.parse(lines[0]).candidates[0].content.parts[0].thoughtSignature,
        },
      ],
    });
  });

  it('thought-parts.chunks.txt: thought parts are thinking, then the answer', () => {
    const a = answerOfEvents(decodeLines(fixtureChunks(`${DIR}thought-parts.chunks.txt`)));
    expect(a.thinking).toMatch(/^\* {3}User input: "Reply with exactly: hello"/);
    expect(a.thinking).toContain('Output: "hello"');
    expect(a).toMatchObject({ text: 'hello', stop: 'end', usage: usage(6, 1 + 76, 0, 76), signatures: [] });
  });

  it('vertex-streamed-function-call-args: partialArgs become tool_args deltas of two parallel calls', () => {
    const lines = fixtureChunks(`${DIR}vertex-streamed-function-call-args.chunks.txt`);
    const events = decodeLines(lines);
    const a = answerOfEvents(events);
    expect(a.calls.map((c) => [c.name, JSON.parse(c.args)])).toEqual([
      ['getWeather', { location: 'Boston' }],
      ['getWeather', { location: 'San Francisco' }],
    ]);
    expect(a.calls[0].signature).toBe(JSON.parse(lines[0]).candidates[0].content.parts[0].thoughtSignature);
    expect(a.calls[1].signature).toBeUndefined();
    expect(a.calls[0].id).not.toBe(a.calls[1].id);
    expect(a.stop).toBe('tool_calls');
    // Intermediate chunks carry only trafficType: the one usage event is the final one.
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      { type: 'usage', usage: usage(26, 23 + 132, 0, 132) },
    ]);
    // The arguments stream: the city arrives before its call closes.
    const deltas = events.flatMap((e) => (e.type === 'tool_args' && e.index === 0 ? [e.delta] : []));
    expect(deltas).toEqual(['{"location":"Boston', '"', '}']);
  });

  it('emits events as chunks arrive, not at the end', () => {
    const lines = fixtureChunks(`${DIR}thought-parts.chunks.txt`);
    const dec = geminiCodec.streamDecoder(streamCtx);
    const first = dec.push({ data: lines[0] });
    expect(first.map((e) => e.type)).toEqual(['start', 'thinking', 'usage']);
    expect(dec.push({ data: lines[4] })).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'usage', usage: usage(6, 77, 0, 76) },
    ]);
  });

  it('the parts of the finish chunk come before the finish; usage after finish still counts', () => {
    const dec = geminiCodec.streamDecoder(streamCtx);
    const events = [
      ...dec.push({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'a' }] } }] }) }),
      ...dec.push({
        data: JSON.stringify({
          candidates: [
            { content: { parts: [{ functionCall: { name: 'f', args: { x: 1 } } }] }, finishReason: 'STOP' },
          ],
        }),
      }),
      ...dec.push({
        data: JSON.stringify({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 } }),
      }),
      ...dec.end(),
    ];
    expect(events.map((e) => e.type)).toEqual(['start', 'text', 'tool_call', 'tool_args', 'finish', 'usage']);
    expect(answerOfEvents(events)).toMatchObject({ stop: 'tool_calls', usage: usage(3, 4) });
  });

  it('a blocked prompt in a stream finishes with promptBlocked', () => {
    const a = answerOfEvents(
      decodeLines([
        JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7 } }),
      ]),
    );
    expect(a).toMatchObject({ stop: 'content_filter', promptBlocked: 'SAFETY', usage: usage(7, 0) });
  });

  it('an error chunk is an error event and the rest is ignored; a cut stream ends in an error', () => {
    const dec = geminiCodec.streamDecoder(streamCtx);
    dec.push({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'a' }] } }] }) });
    const err = dec.push({
      data: '{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}',
    });
    expect(err).toEqual([
      {
        type: 'error',
        error: {
          status: 429,
          kind: 'rate_limit',
          message: 'slow down',
          code: 'RESOURCE_EXHAUSTED',
          param: null,
        },
      },
    ]);
    expect(dec.push({ data: JSON.stringify({ candidates: [{ finishReason: 'STOP' }] }) })).toEqual([]);
    expect(dec.end()).toEqual([]);

    const lines = fixtureChunks(`${DIR}text.chunks.txt`);
    const cut = decodeLines(lines.slice(0, 2));
    expect(cut.at(-1)).toMatchObject({ type: 'error', error: { status: 502 } });
    expect(decodeLines([])).toEqual([]);
    expect(decodeLines(['', 'not json', '[1,2]'])).toEqual([]);
  });

  it('a stream framed as one JSON array element per event, or a whole array, reads the same', () => {
    const lines = fixtureChunks(`${DIR}text.chunks.txt`);
    const whole = decodeLines([`[${lines.join(',')}]`]);
    expect(answerOfEvents(whole)).toEqual(answerOfEvents(decodeLines(lines)));
  });
});

describe('gemini codec: Vertex partialArgs as JSON text', () => {
  const write = (args: unknown[]) => {
    const w = new PartialArgsWriter();
    return args.map((a) => w.push(a)).join('') + w.end();
  };

  it('strings split over fragments, numbers, bools, nulls, nested objects and arrays', () => {
    const text = write([
      { jsonPath: '$.city', stringValue: 'San ', willContinue: true },
      { jsonPath: '$.city', stringValue: 'Fran"cisco', willContinue: true },
      { jsonPath: '$.city', stringValue: '' },
      { jsonPath: '$.days', numberValue: 3 },
      { jsonPath: '$.opts.metric', boolValue: true },
      { jsonPath: '$.opts.lang', nullValue: 'NULL_VALUE' },
      { jsonPath: '$.stops[0].name', stringValue: 'A' },
      { jsonPath: '$.stops[0].km', numberValue: 1.5 },
      { jsonPath: '$.stops[1].name', stringValue: 'B' },
      { jsonPath: '$.tags[0]', stringValue: 'x' },
      { jsonPath: '$.tags[1]', stringValue: 'y', willContinue: true },
      { jsonPath: "$['odd key']", stringValue: 'z' },
    ]);
    expect(JSON.parse(text)).toEqual({
      city: 'San Fran"cisco',
      days: 3,
      opts: { metric: true, lang: null },
      stops: [{ name: 'A', km: 1.5 }, { name: 'B' }],
      tags: ['x', 'y'],
      'odd key': 'z',
    });
  });

  it('no fragments is an empty object; junk fragments are skipped', () => {
    expect(write([])).toBe('{}');
    expect(JSON.parse(write([null, { jsonPath: 'nope' }, { jsonPath: '$.a', numberValue: 1 }]))).toEqual({
      a: 1,
    });
  });
});

describe('gemini codec: same-format round trips', () => {
  it.each(['text.json', 'function-call.json'])('%s: decode, encode, decode gives the same answer', (file) => {
    const body = fixtureJson(`${DIR}${file}`);
    const hub = geminiCodec.decodeResponse(body, ctx);
    const encoded = geminiCodec.encodeResponse(hub, ctx) as any;
    expect(answerOfResponse(geminiCodec.decodeResponse(encoded, ctx))).toEqual(answerOfResponse(hub));
    expect(encoded.responseId).toBe(body.responseId);
    expect(encoded.modelVersion).toBe(body.modelVersion);
    expect(encoded.candidates[0].finishReason).toBe('STOP');
    expect(encoded.usageMetadata).toEqual({
      promptTokenCount: body.usageMetadata.promptTokenCount,
      candidatesTokenCount: body.usageMetadata.candidatesTokenCount,
      thoughtsTokenCount: body.usageMetadata.thoughtsTokenCount,
      totalTokenCount: body.usageMetadata.totalTokenCount,
    });
    // Parts as Gemini gave them: the signature back on its own part, args as an object.
    const parts = encoded.candidates[0].content.parts.map((p: any) =>
      p.functionCall ? { ...p, functionCall: { name: p.functionCall.name, args: p.functionCall.args } } : p,
    );
    expect(parts).toEqual(body.candidates[0].content.parts);
  });

  it.each([
    'text.chunks.txt',
    'function-call.chunks.txt',
    'thought-parts.chunks.txt',
    'vertex-streamed-function-call-args.chunks.txt',
  ])('%s: decode, encode, decode gives the same events', (file) => {
    const events = decodeLines(fixtureChunks(`${DIR}${file}`));
    const sse = encodeEvents(events);
    const chunks = chunksOf(sse);
    const again = decodeLines(sseData(sse));
    const want = answerOfEvents(events);
    const got = answerOfEvents(again);
    expect({ ...got, calls: got.calls.map((c) => ({ ...c, args: JSON.parse(c.args) })) }).toEqual({
      ...want,
      calls: want.calls.map((c) => ({ ...c, args: JSON.parse(c.args) })),
    });
    // Usage and finishReason only on the last chunk; one response id throughout.
    expect(chunks.slice(0, -1).every((c) => !c.usageMetadata && !c.candidates[0].finishReason)).toBe(true);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
  });
});

describe('gemini codec: stream encoding', () => {
  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };

  it('holds a call until its arguments are complete; interleaved parallel calls come out whole', () => {
    const chunks = chunksOf(
      encodeEvents([
        start,
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' },
        { type: 'tool_args', index: 0, delta: '{"city":' },
        { type: 'tool_call', index: 1, id: 'toolu_b', name: 'time' },
        { type: 'tool_args', index: 1, delta: '{"tz":"CET"' },
        { type: 'tool_args', index: 0, delta: '"Paris"}' },
        { type: 'tool_args', index: 1, delta: '}' },
        { type: 'tool_call', index: 2, id: 'toolu_c', name: 'noargs' },
        { type: 'finish', stop: 'tool_calls' },
        { type: 'usage', usage: usage(20, 9) },
      ]),
    );
    const parts = chunks.map((c) => c.candidates[0].content?.parts ?? []);
    expect(parts).toEqual([
      [{ text: 'Checking.' }],
      [
        { functionCall: { id: 'toolu_a', name: 'weather', args: { city: 'Paris' } } },
        { functionCall: { id: 'toolu_b', name: 'time', args: { tz: 'CET' } } },
      ],
      [{ functionCall: { id: 'toolu_c', name: 'noargs', args: {} } }],
    ]);
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 9, totalTokenCount: 29 },
      modelVersion: 'claude-sonnet-4-5',
      responseId: 'msg_01abc',
    });
  });

  it('a call is sent when the next one starts and its args are complete', () => {
    const enc = geminiCodec.streamEncoder(streamCtx);
    enc.push(start);
    expect(enc.push({ type: 'tool_call', index: 0, id: 'a', name: 'f' })).toBe('');
    expect(enc.push({ type: 'tool_args', index: 0, delta: '{}' })).toBe('');
    const out = enc.push({ type: 'tool_call', index: 1, id: 'b', name: 'g' });
    expect(chunksOf(out)[0].candidates[0].content.parts).toEqual([
      { functionCall: { id: 'a', name: 'f', args: {} } },
    ]);
  });

  it('signatures: Gemini ones on thought and call parts, packed ids unpacked, others dropped', () => {
    const sse = encodeEvents([
      start,
      { type: 'thinking', text: 'Hmm.' },
      { type: 'thinking_signature', signature: 'anthropic-sig', format: 'anthropic' },
      { type: 'thinking_signature', signature: 'gem-thought', format: 'gemini' },
      { type: 'redacted_thinking', data: 'xyz' },
      {
        type: 'tool_call',
        index: 0,
        id: 'fc_1',
        name: 'f',
        signature: 'gem-call',
        signatureFormat: 'gemini',
      },
      { type: 'tool_args', index: 0, delta: '{}' },
      { type: 'tool_call', index: 1, id: packCallId('fc_2', 'gem-packed'), name: 'g' },
      { type: 'tool_args', index: 1, delta: '{"a":1}' },
      { type: 'finish', stop: 'tool_calls' },
    ]);
    expect(sse).not.toContain('anthropic-sig');
    expect(sse).not.toContain('xyz');
    const parts = chunksOf(sse).flatMap((c) => c.candidates[0].content?.parts ?? []);
    expect(parts).toEqual([
      { text: 'Hmm.', thought: true },
      { text: '', thought: true, thoughtSignature: 'gem-thought' },
      { functionCall: { id: 'fc_1', name: 'f', args: {} }, thoughtSignature: 'gem-call' },
      { functionCall: { id: 'fc_2', name: 'g', args: { a: 1 } }, thoughtSignature: 'gem-packed' },
    ]);
  });

  it.each([
    ['max_tokens', 'MAX_TOKENS'],
    ['content_filter', 'SAFETY'],
    ['refusal', 'SAFETY'],
    ['end', 'STOP'],
    ['stop_sequence', 'STOP'],
    ['pause', 'STOP'],
    ['error', 'OTHER'],
  ] as const)('stop %s -> finishReason %s', (stop, reason) => {
    const chunks = chunksOf(encodeEvents([start, { type: 'text', text: 'x' }, { type: 'finish', stop }]));
    expect(chunks.at(-1).candidates[0].finishReason).toBe(reason);
  });

  it('usage before or after finish reaches the last chunk; cache reads and thoughts mapped', () => {
    for (const order of ['before', 'after'] as const) {
      const u: HubEvent = { type: 'usage', usage: usage(100, 40, 60, 10, 20) };
      const fin: HubEvent = { type: 'finish', stop: 'end' };
      const chunks = chunksOf(
        encodeEvents([start, { type: 'text', text: 'x' }, ...(order === 'before' ? [u, fin] : [fin, u])]),
      );
      expect(chunks.at(-1).usageMetadata).toEqual({
        promptTokenCount: 100,
        candidatesTokenCount: 30,
        thoughtsTokenCount: 10,
        cachedContentTokenCount: 60,
        totalTokenCount: 140,
      });
    }
  });

  it('a blocked prompt ends with promptFeedback and no candidates', () => {
    const chunks = chunksOf(
      encodeEvents([
        start,
        { type: 'finish', stop: 'content_filter', promptBlocked: 'SAFETY' },
        { type: 'usage', usage: usage(5, 0) },
      ]),
    );
    expect(chunks).toEqual([
      {
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 0, totalTokenCount: 5 },
        modelVersion: 'claude-sonnet-4-5',
        responseId: 'msg_01abc',
      },
    ]);
  });

  it('JSON array framing: `[`, `,\\r\\n` between chunks, `]`; the whole parses as an array', () => {
    const jsonCtx = { ...streamCtx, jsonArray: true };
    const enc = geminiCodec.streamEncoder(jsonCtx);
    const pieces = [
      enc.push(start),
      enc.push({ type: 'text', text: 'Hello' }),
      enc.push({ type: 'text', text: ' world' }),
      enc.push({ type: 'finish', stop: 'end' }),
      enc.end(),
      enc.end(),
    ];
    expect(pieces[1].startsWith('[{')).toBe(true);
    expect(pieces[2].startsWith(',\r\n{')).toBe(true);
    expect(pieces[4].endsWith('}]')).toBe(true);
    expect(pieces[5]).toBe('');
    const all = JSON.parse(pieces.join(''));
    expect(all).toHaveLength(3);
    expect(all.map((c: any) => c.candidates[0].content?.parts[0].text ?? '').join('')).toBe('Hello world');
    // Nothing but an error, and nothing at all, are still one array.
    const errOnly = encodeEvents(
      [{ type: 'error', error: { status: 500, kind: 'server', message: 'boom' } }],
      jsonCtx,
    );
    expect(JSON.parse(errOnly)).toEqual([
      { error: { code: 500, message: 'boom (request id: req-test)', status: 'INTERNAL' } },
    ]);
    const empty = geminiCodec.streamEncoder(jsonCtx);
    expect(JSON.parse(empty.end())).toHaveLength(1);
  });

  it('an error mid-stream is one error chunk, then nothing more', () => {
    const enc = geminiCodec.streamEncoder(streamCtx);
    enc.push(start);
    enc.push({ type: 'text', text: 'partial' });
    const err = enc.push({
      type: 'error',
      error: { status: 529, kind: 'overloaded', message: 'Overloaded' },
    });
    expect(chunksOf(err)).toEqual([
      { error: { code: 529, message: 'Overloaded (request id: req-test)', status: 'UNAVAILABLE' } },
    ]);
    expect(enc.push({ type: 'text', text: 'more' })).toBe('');
    expect(enc.end()).toBe('');
  });
});

describe('gemini codec: encoder output through the official @google/genai client', () => {
  let server: Server;
  let ai: GoogleGenAI;
  let next: { status: number; type: string; body: string } = {
    status: 200,
    type: 'application/json',
    body: '{}',
  };
  const seen: Array<{ url: string; body: any }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => {
        raw += d;
      });
      req.on('end', () => {
        seen.push({ url: req.url ?? '', body: raw ? JSON.parse(raw) : null });
        res.writeHead(next.status, { 'content-type': next.type });
        res.end(next.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: `http://127.0.0.1:${port}` } });
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const model = 'gemini-2.5-flash';
  const contents = 'hi';
  const serveJson = (body: unknown, status = 200) => {
    next = { status, type: 'application/json', body: JSON.stringify(body) };
  };
  const serveStream = (events: HubEvent[]) => {
    next = { status: 200, type: 'text/event-stream', body: encodeEvents(events) };
  };
  const streamed = async () => {
    const out: any[] = [];
    for await (const c of await ai.models.generateContentStream({ model, contents })) out.push(c);
    return out;
  };

  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };

  it('a plain answer with thinking, text and two tool calls (one with a Gemini signature)', async () => {
    const hub: HubResponse = {
      id: 'msg_01abc',
      model: 'claude-sonnet-4-5',
      created: 1770000000,
      parts: [
        { type: 'thinking', text: 'Let me look.', signature: 'anthropic-sig', signatureFormat: 'anthropic' },
        { type: 'text', text: 'Checking both.' },
        { type: 'refusal', text: '' },
        { type: 'tool_call', id: 'toolu_1', name: 'weather', args: '{"city":"Paris"}' },
        {
          type: 'tool_call',
          id: 'fc_2',
          name: 'time',
          args: '',
          signature: 'gem-sig',
          signatureFormat: 'gemini',
        },
      ],
      stop: 'tool_calls',
      usage: usage(100, 40, 60, 10, 20),
    };
    serveJson(geminiCodec.encodeResponse(hub, ctx));
    const got = await ai.models.generateContent({ model, contents });
    expect(seen.at(-1)?.url).toMatch(new RegExp(`^/v1(beta)?/models/${model}:generateContent$`));
    expect(got.responseId).toBe('msg_01abc');
    expect(got.modelVersion).toBe('claude-sonnet-4-5');
    expect(got.text).toBe('Checking both.');
    expect(got.candidates?.[0].finishReason).toBe('STOP');
    expect(got.candidates?.[0].content?.parts?.[0]).toEqual({ text: 'Let me look.', thought: true });
    expect(got.functionCalls).toEqual([
      { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } },
      { id: 'fc_2', name: 'time', args: {} },
    ]);
    expect(got.candidates?.[0].content?.parts?.[3].thoughtSignature).toBe('gem-sig');
    expect(got.usageMetadata).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 30,
      thoughtsTokenCount: 10,
      cachedContentTokenCount: 60,
      totalTokenCount: 140,
    });
    expect(JSON.stringify(got)).not.toContain('anthropic-sig');
  });

  it('a blocked prompt reaches the client as promptFeedback with no text', async () => {
    serveJson(
      geminiCodec.encodeResponse(
        {
          id: 'r',
          model: 'm',
          created: 1,
          parts: [],
          stop: 'content_filter',
          usage: usage(3, 0),
          promptBlocked: 'SAFETY',
        },
        ctx,
      ),
    );
    const got = await ai.models.generateContent({ model, contents });
    expect(got.promptFeedback?.blockReason).toBe('SAFETY');
    expect(got.candidates).toBeUndefined();
    expect(got.text).toBeUndefined();
  });

  it('streamed thinking then text', async () => {
    serveStream([
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'text', text: '4' },
      { type: 'text', text: '.' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(10, 5, 0, 3) },
    ]);
    const chunks = await streamed();
    expect(seen.at(-1)?.url).toMatch(
      new RegExp(`^/v1(beta)?/models/${model}:streamGenerateContent\\?alt=sse$`),
    );
    const parts = chunks.flatMap((c) => c.candidates?.[0].content?.parts ?? []);
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(''),
    ).toBe('Two plus two.');
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('4.');
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(chunks.at(-1).usageMetadata).toMatchObject({
      promptTokenCount: 10,
      candidatesTokenCount: 2,
      thoughtsTokenCount: 3,
    });
    expect(chunks.every((c) => c.responseId === 'msg_01abc')).toBe(true);
  });

  it('streamed text then two parallel tool calls with split args: whole function calls', async () => {
    serveStream([
      start,
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'call_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_call', index: 1, id: 'call_b', name: 'weather' },
      { type: 'tool_args', index: 1, delta: '{"city":"Rome"}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9) },
    ]);
    const chunks = await streamed();
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([
      { id: 'call_a', name: 'weather', args: { city: 'Paris' } },
      { id: 'call_b', name: 'weather', args: { city: 'Rome' } },
    ]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it('the recorded Vertex streamed-args answer, re-encoded, reaches the client as two whole calls', async () => {
    serveStream(decodeLines(fixtureChunks(`${DIR}vertex-streamed-function-call-args.chunks.txt`)));
    const chunks = await streamed();
    expect(chunks.flatMap((c) => c.functionCalls ?? []).map((c: any) => c.args)).toEqual([
      { location: 'Boston' },
      { location: 'San Francisco' },
    ]);
    expect(chunks.at(-1).usageMetadata).toMatchObject({
      promptTokenCount: 26,
      candidatesTokenCount: 23,
      thoughtsTokenCount: 132,
    });
  });

  it('an error mid-stream reaches the client as an ApiError with its status and message', async () => {
    serveStream([
      start,
      { type: 'text', text: 'partial' },
      { type: 'error', error: { status: 503, kind: 'overloaded', message: 'Overloaded' } },
    ]);
    const err = await streamed().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(503);
    expect(err.message).toContain('Overloaded');
    expect(err.message).toContain('UNAVAILABLE');
  });

  it.each([
    ['invalid_request', 400, 'INVALID_ARGUMENT'],
    ['authentication', 401, 'UNAUTHENTICATED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['rate_limit', 429, 'RESOURCE_EXHAUSTED'],
    ['quota', 429, 'RESOURCE_EXHAUSTED'],
    ['server', 500, 'INTERNAL'],
    ['overloaded', 503, 'UNAVAILABLE'],
    ['timeout', 504, 'DEADLINE_EXCEEDED'],
  ] as const)('error kind %s reaches the client as %i %s, and decodes back', async (kind, status, name) => {
    const out = geminiCodec.encodeError({ status: 0, kind, message: 'went wrong' }, 'req-9');
    expect(out).toEqual({
      status,
      body: { error: { code: status, message: 'went wrong (request id: req-9)', status: name } },
    });
    serveJson(out.body, out.status);
    const err = await ai.models.generateContent({ model, contents }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(JSON.parse(err.message)).toEqual(out.body);
    expect(geminiCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(
      kind === 'quota' ? 'rate_limit' : kind,
    );
  });

  it("the client's own request body decodes to the hub", async () => {
    serveJson(
      geminiCodec.encodeResponse(
        { id: 'r', model, created: 1, parts: [], stop: 'end', usage: usage(1, 1) },
        ctx,
      ),
    );
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
    await ai.models.generateContent({
      model,
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather in Paris and Rome?' },
            { inlineData: { mimeType: 'image/png', data: png } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'Planning.', thought: true },
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
            { functionCall: { name: 'weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'weather', response: { output: 'sunny' } } },
            { functionResponse: { name: 'weather', response: { temp: 21, sky: 'clear' } } },
          ],
        },
      ],
      config: {
        systemInstruction: 'Be brief.',
        tools: [
          {
            functionDeclarations: [
              {
                name: 'weather',
                description: 'Weather for a city',
                parametersJsonSchema: {
                  type: 'object',
                  properties: { city: { type: 'string' } },
                  required: ['city'],
                },
              },
            ],
          },
          { googleSearch: {} },
        ],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['weather'] },
        },
        thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.LOW },
        maxOutputTokens: 256,
        temperature: 0.3,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        seed: 11,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as any, threshold: 'BLOCK_NONE' as any }],
      },
    });
    const body = seen.at(-1)?.body;
    expect(body.model).toBeUndefined();
    const req = geminiCodec.decodeRequest(body, { ...ctx, model: 'routed-model' });
    expect(req).toMatchObject({
      model: 'routed-model',
      stream: false,
      system: [{ type: 'text', text: 'Be brief.' }],
      tools: [
        {
          name: 'weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      serverTools: [{ type: 'opaque', format: 'gemini', value: { googleSearch: {} } }],
      toolChoice: { type: 'tool', name: 'weather' },
      thinking: { enabled: true, effort: 'low', includeThoughts: true },
      maxTokens: 256,
      temperature: 0.3,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      seed: 11,
      responseFormat: {
        type: 'json_schema',
        name: 'response',
        schema: { type: 'object', properties: { answer: { type: 'string' } } },
      },
    });
    const [user, assistant, results] = req.messages;
    expect(user.parts).toEqual([
      { type: 'text', text: 'Weather in Paris and Rome?' },
      { type: 'image', data: png, mediaType: 'image/png' },
    ]);
    expect(assistant.parts).toEqual([
      { type: 'thinking', text: 'Planning.' },
      {
        type: 'tool_call',
        id: 'call_1_1',
        name: 'weather',
        args: '{"city":"Paris"}',
        signature: 'c2lnLTE=',
        signatureFormat: 'gemini',
      },
      { type: 'tool_call', id: 'call_1_2', name: 'weather', args: '{"city":"Rome"}' },
    ]);
    expect(results.parts).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_1',
        name: 'weather',
        content: [{ type: 'text', text: 'sunny' }],
      },
      {
        type: 'tool_result',
        callId: 'call_1_2',
        name: 'weather',
        content: [{ type: 'text', text: '{"temp":21,"sky":"clear"}' }],
      },
    ]);
  });
});

describe('gemini codec: request decoding', () => {
  const decode = (body: Record<string, unknown>, c: CodecContext = ctx) => geminiCodec.decodeRequest(body, c);
  const user = (...parts: unknown[]) => ({ role: 'user', parts });
  const modelTurn = (...parts: unknown[]) => ({ role: 'model', parts });

  it('model from the URL, stream from the method; snake_case field names read too', () => {
    const req = decode(
      {
        contents: [
          { parts: [{ text: 'hi' }, { inline_data: { mime_type: 'application/pdf', data: 'JVBERi0=' } }] },
        ],
        system_instruction: { parts: [{ text: 'Sys A' }, { text: 'Sys B' }] },
        generation_config: {
          max_output_tokens: 50,
          candidate_count: 2,
          presence_penalty: 0.5,
          frequency_penalty: -0.5,
          thinking_config: { thinking_budget: 0 },
          response_mime_type: 'application/json',
        },
        tools: [{ function_declarations: [{ name: 'f' }] }],
        tool_config: { function_calling_config: { mode: 'none' } },
        cached_content: 'cachedContents/abc',
      },
      { ...streamCtx, model: 'gemini-2.5-pro' },
    );
    expect(req).toEqual({
      model: 'gemini-2.5-pro',
      stream: true,
      system: [
        { type: 'text', text: 'Sys A' },
        { type: 'text', text: 'Sys B' },
      ],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'hi' },
            { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf' },
          ],
        },
      ],
      tools: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
      toolChoice: { type: 'none' },
      maxTokens: 50,
      n: 2,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      thinking: { enabled: false },
      responseFormat: { type: 'json_object' },
      cachedContent: 'cachedContents/abc',
    });
  });

  it('Gemini Schema parameters and responseSchema are read as JSON Schema', () => {
    const req = decode({
      contents: [user({ text: 'x' })],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'search',
              parameters: {
                type: 'OBJECT',
                properties: {
                  q: { type: 'STRING', description: 'query' },
                  limit: { type: 'INTEGER', nullable: true },
                  tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['a', 'b'] } },
                },
                required: ['q'],
                propertyOrdering: ['q', 'limit', 'tags'],
              },
            },
          ],
        },
      ],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'ARRAY', items: { type: 'NUMBER' } },
      },
    });
    expect(req.tools[0].parameters).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'query' },
        limit: { type: ['integer', 'null'] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      },
      required: ['q'],
    });
    expect(req.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'array', items: { type: 'number' } },
    });
  });

  it.each([
    [
      { thinkingBudget: 2048, includeThoughts: true },
      { enabled: true, budgetTokens: 2048, includeThoughts: true },
    ],
    [{ thinkingBudget: -1 }, { enabled: true }],
    [{ thinkingBudget: 0 }, { enabled: false }],
    [{ thinkingLevel: 'high' }, { enabled: true, effort: 'high' }],
    [{ thinkingLevel: 'MINIMAL' }, { enabled: true, effort: 'minimal' }],
    [{ includeThoughts: true }, { enabled: true, includeThoughts: true }],
    [{ includeThoughts: false }, undefined],
  ])('thinkingConfig %j -> %j', (tc, thinking) => {
    expect(
      decode({ contents: [user({ text: 'x' })], generationConfig: { thinkingConfig: tc } }).thinking,
    ).toEqual(thinking);
  });

  it.each([
    [{ mode: 'AUTO' }, { type: 'auto' }],
    [{ mode: 'VALIDATED' }, { type: 'auto' }],
    [{ mode: 'NONE' }, { type: 'none' }],
    [{ mode: 'ANY' }, { type: 'required' }],
    [{ mode: 'ANY', allowedFunctionNames: ['f', 'g'] }, { type: 'required' }],
    [
      { mode: 'ANY', allowedFunctionNames: ['g'] },
      { type: 'tool', name: 'g' },
    ],
  ])('functionCallingConfig %j -> %j', (fcc, choice) => {
    const req = decode({
      contents: [user({ text: 'x' })],
      tools: [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }],
      toolConfig: { functionCallingConfig: fcc },
    });
    expect(req.toolChoice).toEqual(choice);
  });

  it('function calls without ids get distinct stable ids; responses match by id, else by name in order', () => {
    const body = {
      contents: [
        user({ text: 'go' }),
        modelTurn(
          { functionCall: { name: 'read', args: { path: 'a' } } },
          { functionCall: { name: 'read', args: { path: 'b' } } },
          { functionCall: { id: 'given-1', name: 'write', args: {} } },
        ),
        user(
          { functionResponse: { id: 'given-1', name: 'write', response: { result: 'ok' } } },
          { functionResponse: { name: 'read', response: { content: 'A' } } },
          { functionResponse: { name: 'read', response: { error: 'no such file' } } },
        ),
      ],
    };
    const first = decode(body);
    const calls = first.messages[1].parts as Array<{ id: string }>;
    expect(calls.map((c) => c.id)).toEqual(['call_1_0', 'call_1_1', 'given-1']);
    expect(first.messages[2].parts).toEqual([
      { type: 'tool_result', callId: 'given-1', name: 'write', content: [{ type: 'text', text: 'ok' }] },
      { type: 'tool_result', callId: 'call_1_0', name: 'read', content: [{ type: 'text', text: 'A' }] },
      {
        type: 'tool_result',
        callId: 'call_1_1',
        name: 'read',
        content: [{ type: 'text', text: 'no such file' }],
        isError: true,
      },
    ]);
    // Stable across requests, so an upstream's prompt cache still matches the history.
    expect(decode(body)).toEqual(first);
  });

  it('keeps parts that carry only a signature, signatures on text, and packed ids with their signature', () => {
    const packed = packCallId('call_x', 'gem-sig');
    const req = decode({
      contents: [
        user({ text: 'q' }),
        modelTurn(
          { text: 'Answer.', thoughtSignature: 'c2lnLUE=' },
          { thoughtSignature: 'c2lnLUI=' },
          { text: '', thought: true, thoughtSignature: 'c2lnLUM=' },
          { functionCall: { id: packed, name: 'f', args: {} } },
        ),
        user({ functionResponse: { id: packed, name: 'f', response: {} } }),
      ],
    });
    expect(req.messages[1].parts).toEqual([
      { type: 'text', text: 'Answer.' },
      { type: 'thinking', text: '', signature: 'c2lnLUE=', signatureFormat: 'gemini' },
      { type: 'thinking', text: '', signature: 'c2lnLUI=', signatureFormat: 'gemini' },
      { type: 'thinking', text: '', signature: 'c2lnLUM=', signatureFormat: 'gemini' },
      {
        type: 'tool_call',
        id: packed,
        name: 'f',
        args: '{}',
        signature: 'gem-sig',
        signatureFormat: 'gemini',
      },
    ]);
    expect(req.messages[2].parts).toEqual([{ type: 'tool_result', callId: packed, name: 'f', content: [] }]);
  });

  it('files by URI: public URLs as URLs, Files API and gs:// URIs as Gemini opaque parts', () => {
    const files = {
      fileData: {
        mimeType: 'video/mp4',
        fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
      },
    };
    const gcs = { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/a.pdf' } };
    const req = decode({
      contents: [
        user(
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { fileData: { fileUri: 'https://example.com/dog.png' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/a.pdf' } },
          files,
          gcs,
        ),
      ],
    });
    expect(req.messages[0].parts).toEqual([
      { type: 'image', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' },
      { type: 'image', url: 'https://example.com/dog.png' },
      { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
      { type: 'opaque', format: 'gemini', value: files },
      { type: 'opaque', format: 'gemini', value: gcs },
    ]);
  });

  it('a functionResponse with multimodal parts keeps its images; consecutive turns of a role merge', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9, 9]).toString('base64');
    const req = decode({
      contents: [
        user({ text: 'shot' }),
        modelTurn({ functionCall: { name: 'screenshot' } }),
        {
          role: 'function',
          parts: [
            {
              functionResponse: {
                name: 'screenshot',
                response: { output: 'taken' },
                parts: [{ inlineData: { mimeType: 'image/png', data: png } }],
              },
            },
          ],
        },
        user({ text: 'and?' }),
      ],
    });
    expect(req.messages).toHaveLength(3);
    expect(req.messages[2].parts).toEqual([
      {
        type: 'tool_result',
        callId: 'call_1_0',
        name: 'screenshot',
        content: [
          { type: 'text', text: 'taken' },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      { type: 'text', text: 'and?' },
    ]);
  });

  it.each([
    [{}, '* GenerateContentRequest.contents: contents is not specified'],
    [{ contents: [] }, 'contents is not specified'],
    [{ contents: 'hi' }, "Invalid value at 'contents'"],
    [{ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'Please use a valid role: user, model.'],
    [{ contents: [{ role: 'user', parts: [] }] }, 'contents[0].parts: contents.parts must not be empty.'],
    [{ contents: [{ role: 'user' }] }, 'contents.parts must not be empty.'],
    [
      { contents: [user({})] },
      "contents[0].parts[0].data: required oneof field 'data' must have one initialized field",
    ],
    [{ contents: [user({ text: 5 })] }, 'Invalid value at \'contents[0].parts[0].text\' (TYPE_STRING), "5"'],
    [
      { contents: [user({ inlineData: { mimeType: 'image/png', data: 'not base64!' } })] },
      'Base64 decoding failed',
    ],
    [{ contents: [user({ inlineData: { data: 'AAAA' } })] }, 'inline_data.mime_type: Missing mime_type.'],
    [
      { contents: [modelTurn({ functionCall: { args: {} } })] },
      'parts[0].function_call.name: Name cannot be empty.',
    ],
    [
      { contents: [modelTurn({ functionCall: { name: 'f', args: [1] } })] },
      "Invalid value at 'contents[0].parts[0].function_call.args'",
    ],
    [{ contents: [user({ functionCall: { name: 'f' } })] }, 'must be in a model turn'],
    [{ contents: [modelTurn({ functionResponse: { name: 'f' } })] }, 'must be in a user turn'],
    [
      { contents: [user({ text: 'x' })], generationConfig: { temperature: 'hot' } },
      'Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { temperature: 3 } },
      'temperature must be in the range [0, 2]',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { maxOutputTokens: 1.5 } },
      "'generation_config.max_output_tokens' (TYPE_INT32)",
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { candidateCount: 9 } },
      'candidate_count must be in the range [1, 8]',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { stopSequences: 'END' } },
      "'generation_config.stop_sequences'",
    ],
    [
      {
        contents: [user({ text: 'x' })],
        generationConfig: { thinkingConfig: { thinkingBudget: 10, thinkingLevel: 'LOW' } },
      },
      'You can only set only one of thinking budget and thinking level.',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { thinkingConfig: { thinkingLevel: 'extreme' } } },
      'generation_config.thinking_config.thinking_level',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { responseMimeType: 'text/html' } },
      'allowed mimetypes are',
    ],
    [
      { contents: [user({ text: 'x' })], generationConfig: { responseSchema: { type: 'STRING' } } },
      'response_mime_type must be application/json',
    ],
    [
      { contents: [user({ text: 'x' })], tools: [{ functionDeclarations: [{ name: '1bad name' }] }] },
      'tools[0].function_declarations[0].name: Invalid function name.',
    ],
    [{ contents: [user({ text: 'x' })], tools: { functionDeclarations: [] } }, "Invalid value at 'tools'"],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: {}, parametersJsonSchema: {} }] }],
      },
      'cannot both be set',
    ],
    [
      { contents: [user({ text: 'x' })], toolConfig: { functionCallingConfig: { mode: 'ANY' } } },
      'Function calling config is set without function_declarations.',
    ],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } },
      },
      'tool_config.function_calling_config.mode',
    ],
    [
      {
        contents: [user({ text: 'x' })],
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
      },
      'not a declared function',
    ],
    [{ contents: [user({ text: 'x' })], systemInstruction: 5 }, "Invalid value at 'system_instruction'"],
    [{ contents: [user({ text: 'x' })], safetySettings: ['x'] }, "Invalid value at 'safety_settings[0]'"],
  ])('400 for %j', (body, message) => {
    const err = (() => {
      try {
        decode(body as Record<string, unknown>);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(400);
    expect((err as RelayError).message).toContain(message);
  });

  it('never crashes on odd input: every shape is a hub request or a 400', () => {
    const odd: unknown[] = [
      null,
      0,
      'x',
      [],
      {},
      [null],
      { parts: null },
      { text: null },
      { role: null, parts: [{}] },
    ];
    for (const a of odd)
      for (const b of odd) {
        const bodies = [
          { contents: a },
          { contents: [a] },
          { contents: [{ parts: [a] }] },
          { contents: [{ role: 'model', parts: [{ functionCall: a }] }] },
          { contents: [{ parts: [{ functionResponse: { name: 'f', response: a } }] }] },
          { contents: [{ parts: [{ text: 'x' }] }], generationConfig: a, tools: [b] },
          { contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [a] }], toolConfig: b },
          {
            contents: [{ parts: [{ text: 'x' }] }],
            systemInstruction: a,
            generationConfig: { thinkingConfig: b },
          },
        ];
        for (const body of bodies) {
          try {
            decode(body as Record<string, unknown>);
          } catch (e) {
            expect(e).toBeInstanceOf(RelayError);
            expect((e as RelayError).status).toBe(400);
          }
        }
      }
    expect(() => decode(null as unknown as Record<string, unknown>)).toThrow(RelayError);
  });
});

describe('gemini codec: request encoding for a Gemini upstream', () => {
  const base: HubRequest = { model: 'gemini-2.5-flash', stream: false, system: [], messages: [], tools: [] };
  const encode = (req: Partial<HubRequest>) => geminiCodec.encodeRequest({ ...base, ...req }, ctx) as any;
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 5, 5, 5, 5]).toString('base64');

  it('contents alternate user/model; tool results become named functionResponses, images after them', () => {
    const body = encode({
      stream: true,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use tools.' },
      ],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        { role: 'user', parts: [{ type: 'image', url: 'https://example.com/a.webp' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'toolu_1', name: 'weather', args: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'toolu_2', name: 'shot', args: '' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Here.' },
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
            {
              type: 'tool_result',
              callId: 'toolu_2',
              content: [
                { type: 'text', text: '{"ok":true}' },
                { type: 'image', data: png, mediaType: 'image/png' },
              ],
            },
            {
              type: 'tool_result',
              callId: 'toolu_3',
              name: 'other',
              content: [{ type: 'text', text: 'boom' }],
              isError: true,
            },
          ],
        },
      ],
    });
    expect(body.model).toBeUndefined();
    expect(body.stream).toBeUndefined();
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use tools.' }] });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Weather?' },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/a.webp' } },
        ],
      },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { id: 'toolu_1', name: 'weather', args: { city: 'Paris' } } },
          { functionCall: { id: 'toolu_2', name: 'shot', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'toolu_1', name: 'weather', response: { result: 'sunny' } } },
          { functionResponse: { id: 'toolu_2', name: 'shot', response: { ok: true } } },
          { functionResponse: { id: 'toolu_3', name: 'other', response: { error: 'boom' } } },
          { inlineData: { mimeType: 'image/png', data: png } },
          { text: 'Here.' },
        ],
      },
    ]);
  });

  it('thinking is replayed only with a Gemini signature; call signatures restored; foreign opaque parts dropped', () => {
    const body = encode({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'Claude thought', signature: 'anth', signatureFormat: 'anthropic' },
            { type: 'thinking', text: '', redacted: 'abc' },
            { type: 'thinking', text: 'unsigned summary' },
            { type: 'thinking', text: 'gemini thought', signature: 'g-1', signatureFormat: 'gemini' },
            { type: 'text', text: 'Answer.' },
            { type: 'thinking', text: '', signature: 'g-2', signatureFormat: 'gemini' },
            { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
            { type: 'opaque', format: 'gemini', value: { executableCode: { code: 'print(1)' } } },
            {
              type: 'tool_call',
              id: 'c1',
              name: 'f',
              args: '{}',
              signature: 'g-3',
              signatureFormat: 'gemini',
            },
            { type: 'tool_call', id: packCallId('c2', 'g-4'), name: 'f', args: '{}' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_result', callId: packCallId('c2', 'g-4'), content: [{ type: 'text', text: 'ok' }] },
          ],
        },
      ],
    });
    expect(JSON.stringify(body)).not.toContain('anth');
    expect(JSON.stringify(body)).not.toContain('summary');
    expect(body.contents[1].parts).toEqual([
      { text: 'gemini thought', thought: true, thoughtSignature: 'g-1' },
      { text: 'Answer.', thoughtSignature: 'g-2' },
      { executableCode: { code: 'print(1)' } },
      { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'g-3' },
      { functionCall: { id: 'c2', name: 'f', args: {} }, thoughtSignature: 'g-4' },
    ]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { id: 'c2', name: 'f', response: { result: 'ok' } } },
    ]);
  });

  it("on Gemini 3 a model turn's first unsigned call gets Google's stand-in signature; not before 3", () => {
    const messages: HubRequest['messages'] = [
      { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'toolu_1', name: 'f', args: '{}' },
          { type: 'tool_call', id: 'toolu_2', name: 'f', args: '{}' },
        ],
      },
    ];
    const g3 = encode({ model: 'gemini-3-pro-preview', messages });
    expect(g3.contents[1].parts.map((p: any) => p.thoughtSignature)).toEqual([
      'skip_thought_signature_validator',
      undefined,
    ]);
    expect(JSON.stringify(encode({ messages }))).not.toContain('skip_thought');
  });

  it('tools with cleaned schemas, tool choice, Gemini server tools kept, others dropped', () => {
    const body = encode({
      tools: [
        {
          name: 'edit',
          description: 'Edit a file',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            additionalProperties: false,
            properties: {
              path: { type: 'string', format: 'uri', default: 'a.txt' },
              mode: { const: 'replace' },
              count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
              tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, examples: [['x']] },
              meta: {
                type: ['object', 'null'],
                propertyNames: { pattern: '^a' },
                patternProperties: { '^a': {} },
              },
            },
            required: ['path', 'missing'],
          },
        },
        { name: 'ping', parameters: { type: 'object', properties: {} } },
      ],
      serverTools: [
        { type: 'opaque', format: 'gemini', value: { googleSearch: {} } },
        { type: 'opaque', format: 'anthropic', value: { type: 'web_search_20250305', name: 'web_search' } },
      ],
      toolChoice: { type: 'tool', name: 'edit' },
      parallelToolCalls: false,
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'edit',
            description: 'Edit a file',
            parameters: {
              type: 'object',
              properties: {
                path: { type: 'string' },
                mode: { type: 'string', enum: ['replace'] },
                count: { type: 'integer', minimum: 0, maximum: 10 },
                tags: { type: 'array', items: { type: 'string' } },
                meta: { type: 'object', nullable: true },
              },
              required: ['path'],
            },
          },
          { name: 'ping' },
        ],
      },
      { googleSearch: {} },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['edit'] },
    });
    expect(JSON.stringify(body)).not.toContain('parallel');
  });

  it.each([
    [{ type: 'auto' }, { mode: 'AUTO' }],
    [{ type: 'none' }, { mode: 'NONE' }],
    [{ type: 'required' }, { mode: 'ANY' }],
  ] as const)('tool choice %j -> %j', (choice, fcc) => {
    const body = encode({ tools: [{ name: 'f', parameters: { type: 'object' } }], toolChoice: choice });
    expect(body.toolConfig).toEqual({ functionCallingConfig: fcc });
  });

  it('generation config, response format and cached content', () => {
    const body = encode({
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 20,
      stop: ['a', 'b', 'c', 'd', 'e', 'f'],
      n: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseFormat: {
        type: 'json_schema',
        name: 'out',
        schema: { type: 'object', properties: { a: { type: 'string' } } },
      },
      cachedContent: 'cachedContents/xyz',
      user: 'u-1',
    });
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 20,
      stopSequences: ['a', 'b', 'c', 'd', 'e'],
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(body.cachedContent).toBe('cachedContents/xyz');
    expect(encode({ responseFormat: { type: 'json_object' } }).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect(encode({ n: 1, responseFormat: { type: 'text' } }).generationConfig).toBeUndefined();
  });

  it.each([
    [
      'gemini-2.5-flash',
      { enabled: true, budgetTokens: 3000 },
      { includeThoughts: true, thinkingBudget: 3000 },
    ],
    [
      'gemini-2.5-flash',
      { enabled: true, effort: 'medium' },
      { includeThoughts: true, thinkingBudget: 8192 },
    ],
    [
      'gemini-2.5-flash',
      { enabled: true, effort: 'low', includeThoughts: false },
      { includeThoughts: false, thinkingBudget: 1024 },
    ],
    ['gemini-2.5-flash', { enabled: true }, { includeThoughts: true }],
    ['gemini-2.5-flash', { enabled: false }, { includeThoughts: false, thinkingBudget: 0 }],
    ['gemini-2.5-pro', { enabled: false }, { includeThoughts: false, thinkingBudget: 128 }],
    [
      'gemini-3-pro-preview',
      { enabled: true, effort: 'low' },
      { includeThoughts: true, thinkingLevel: 'low' },
    ],
    [
      'gemini-3-pro-preview',
      { enabled: true, effort: 'medium' },
      { includeThoughts: true, thinkingLevel: 'high' },
    ],
    [
      'gemini-3-pro-preview',
      { enabled: true, budgetTokens: 4096 },
      { includeThoughts: true, thinkingBudget: 4096 },
    ],
    ['gemini-3-flash-preview', { enabled: false }, { includeThoughts: false, thinkingLevel: 'low' }],
  ] as const)('%s thinking %j -> %j', (model, thinking, tc) => {
    expect(encode({ model, thinking }).generationConfig.thinkingConfig).toEqual(tc);
  });

  it('a Gemini request survives decode then encode', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [
            { text: 'plan', thought: true, thoughtSignature: 'c2lnLTA=' },
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLTE=' },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temp: 20 } } }] },
        { role: 'model', parts: [{ text: 'It is 20.', thoughtSignature: 'c2lnLTI=' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 64,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    };
    const out = geminiCodec.encodeRequest(geminiCodec.decodeRequest(body, ctx), ctx) as any;
    const withoutIds = out.contents.map((c: any) => ({
      ...c,
      parts: c.parts.map((p: any) =>
        p.functionCall
          ? { ...p, functionCall: { name: p.functionCall.name, args: p.functionCall.args } }
          : p.functionResponse
            ? { functionResponse: { name: p.functionResponse.name, response: p.functionResponse.response } }
            : p,
      ),
    }));
    expect(withoutIds).toEqual(
      body.contents.map((c) => ({
        ...c,
        parts: c.parts.map((p: any) => ({ ...p, ...(p.thought ? { thought: true } : {}) })),
      })),
    );
    // The call and its response carry the same id.
    expect(out.contents[2].parts[0].functionResponse.id).toBe(out.contents[1].parts[1].functionCall.id);
    expect(out.systemInstruction).toEqual(body.systemInstruction);
    expect(out.tools).toEqual(body.tools);
    expect(out.generationConfig).toEqual(body.generationConfig);
  });

  it('an OpenAI chat client talking to a Gemini upstream: packed ids give signatures back, names come from the calls', () => {
    const hub = chatCodec.decodeRequest(
      {
        model: 'gemini-3-pro-preview',
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: packCallId('call_9', 'real-sig'),
                type: 'function',
                function: { name: 'weather', arguments: '{}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: packCallId('call_9', 'real-sig'), content: 'sunny' },
        ],
      },
      ctx,
    );
    const body = geminiCodec.encodeRequest(hub, ctx) as any;
    expect(body.contents[1].parts).toEqual([
      { functionCall: { id: 'call_9', name: 'weather', args: {} }, thoughtSignature: 'real-sig' },
    ]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { id: 'call_9', name: 'weather', response: { result: 'sunny' } } },
    ]);
  });
});

describe('gemini codec: schema cleaning', () => {
  it('inlines $refs (recursive ones become objects), merges allOf, turns type lists and oneOf into anyOf', () => {
    expect(
      toGeminiSchema({
        type: 'object',
        $defs: {
          Point: { type: 'object', properties: { x: { type: 'number' } } },
          Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } },
        },
        properties: {
          p: { $ref: '#/$defs/Point', description: 'a point' },
          n: { $ref: '#/$defs/Node' },
          both: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } } },
              { properties: { b: { type: 'string' } }, required: ['b'] },
            ],
          },
          multi: { type: ['string', 'number'] },
          one: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
          maybe: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
          nums: { enum: [1, 2] },
          nullableEnum: { type: ['string', 'null'], enum: ['a', null] },
          tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
          bare: { type: 'array' },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        p: { type: 'object', description: 'a point', properties: { x: { type: 'number' } } },
        n: { type: 'object', properties: { next: { type: 'object' } } },
        both: {
          type: 'object',
          properties: { a: { type: 'string' }, b: { type: 'string' } },
          required: ['b'],
        },
        multi: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        one: { anyOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
        maybe: { type: 'string', format: 'date-time', nullable: true },
        nums: {},
        nullableEnum: { type: 'string', enum: ['a'], nullable: true },
        tuple: { type: 'array', items: { type: 'string' } },
        bare: { type: 'array', items: { type: 'string' } },
      },
    });
  });

  it('never throws on odd schemas', () => {
    for (const s of [
      null,
      1,
      'x',
      [],
      { type: 5 },
      { properties: [] },
      { items: 'x' },
      { $ref: 5 },
      { anyOf: 'x' },
    ])
      expect(() => toGeminiSchema(s)).not.toThrow();
  });
});

describe('gemini codec: errors', () => {
  it('decodes the recorded Google error bodies', () => {
    expect(geminiCodec.decodeError(400, fixtureText(`${DIR}error-400-invalid-argument.json`))).toEqual({
      status: 400,
      kind: 'invalid_request',
      message: 'Penalty is not enabled for models/gemini-2.5-pro',
      code: 'INVALID_ARGUMENT',
      param: null,
    });
    expect(geminiCodec.decodeError(429, fixtureText(`${DIR}error-429-resource-exhausted.json`))).toEqual({
      status: 429,
      kind: 'rate_limit',
      message: 'You exceeded your current quota, please check your plan.',
      code: 'RESOURCE_EXHAUSTED',
      param: null,
    });
  });

  it.each([
    [
      400,
      '{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}',
      'authentication',
    ],
    [403, '{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}', 'permission'],
    [404, '{"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}', 'not_found'],
    [503, '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}', 'overloaded'],
    [504, '{"error":{"code":504,"message":"Deadline","status":"DEADLINE_EXCEEDED"}}', 'timeout'],
    [500, '{"error":{"code":500,"message":"Internal","status":"INTERNAL"}}', 'server'],
    [400, '[{"error":{"code":400,"message":"bad arg","status":"INVALID_ARGUMENT"}}]', 'invalid_request'],
    [502, '<html>Bad Gateway</html>', 'server'],
    [429, 'Too many requests', 'rate_limit'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = geminiCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it("an out-of-range status falls back to the kind's own", () => {
    expect(geminiCodec.encodeError({ status: 200, kind: 'request_too_large', message: 'big' }, 'r')).toEqual({
      status: 413,
      body: { error: { code: 413, message: 'big (request id: r)', status: 'INVALID_ARGUMENT' } },
    });
  });
});
