import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/errors.ts';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import { textDeltaEvents } from '../src/relay/formats/anthropic/stream-decoder.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { packCallId } from '../src/relay/formats/common.ts';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubRequest,
  HubResponse,
  HubStop,
  HubUsage,
} from '../src/relay/formats/hub.ts';
import { fixtureChunks, fixtureJson, fixtureText, respacedChunks } from './support/fixtures.ts';

const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
const streamCtx: CodecContext = { ...ctx, stream: true };

const usage = (input: number, output: number, more: Partial<HubUsage> = {}): HubUsage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  ...more,
});

interface Call {
  id: string;
  name: string;
  args: string;
}

/** What a client would see of an answer: its texts, thinking, signatures, calls, stop and usage. */
interface Answer {
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

const emptyAnswer = (): Answer => ({
  text: '',
  thinking: '',
  signatures: [],
  redacted: [],
  calls: [],
  opaque: [],
});

function answerOfParts(parts: HubPart[]): Answer {
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

const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  ...(r.stopSequence ? { stopSequence: r.stopSequence } : {}),
  usage: r.usage,
});

function answerOfEvents(events: HubEvent[]): Answer {
  const a = emptyAnswer();
  const calls = new Map<number, Call>();
  for (const e of events) {
    if (e.type === 'start') a.id = e.id;
    else if (e.type === 'text') a.text += e.text;
    else if (e.type === 'thinking') a.thinking += e.text;
    else if (e.type === 'thinking_signature') a.signatures.push(`${e.format}:${e.signature}`);
    else if (e.type === 'redacted_thinking') a.redacted.push(e.data);
    else if (e.type === 'opaque') a.opaque.push(e.value);
    else if (e.type === 'tool_call') calls.set(e.index, { id: e.id, name: e.name, args: '' });
    else if (e.type === 'tool_args') {
      const c = calls.get(e.index);
      if (!c) throw new Error(`tool_args for unopened call ${e.index}`);
      c.args += e.delta;
    } else if (e.type === 'usage') a.usage = e.usage;
    else if (e.type === 'finish') {
      if (a.stop) throw new Error('finish came twice');
      a.stop = e.stop;
      if (e.stopSequence) a.stopSequence = e.stopSequence;
    }
  }
  a.calls = [...calls.values()];
  return a;
}

/** Replays a recorded stream through the decoder as Anthropic frames it (event name = the payload's type). */
function decodeLines(lines: string[]): HubEvent[] {
  const dec = anthropicCodec.streamDecoder(streamCtx);
  const events: HubEvent[] = [];
  for (const line of lines) {
    const type = JSON.parse(line).type;
    events.push(...dec.push({ event: type, data: line }));
  }
  events.push(...dec.end());
  return events;
}

/** Runs hub events through the encoder and returns its SSE bytes. */
function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  const enc = anthropicCodec.streamEncoder(c);
  return events.map((e) => enc.push(e)).join('') + enc.end();
}

/** The frames of SSE text as {event, payload}, checking each frame's event name equals its payload type. */
function frames(sse: string): Array<{ event: string; data: any }> {
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
function checkBlocks(sse: string) {
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

describe('anthropic codec: recorded answers decode to the hub', () => {
  it('text.json', () => {
    const body = fixtureJson('anthropic/messages/text.json');
    expect(answerOfResponse(anthropicCodec.decodeResponse(body, ctx))).toEqual({
      ...emptyAnswer(),
      id: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
      text: body.content[0].text,
      stop: 'end',
      usage: usage(12, 29),
    });
    expect(anthropicCodec.decodeResponse(body, ctx).model).toBe('claude-sonnet-4-5-20250929');
  });

  it('thinking.json: thinking with its signature, tagged anthropic, then text', () => {
    const body = fixtureJson('anthropic/messages/thinking.json');
    const got = anthropicCodec.decodeResponse(body, ctx);
    expect(got.parts).toEqual([
      {
        type: 'thinking',
        text: '925 divided by 5 = 185',
        signature: body.content[0].signature,
        signatureFormat: 'anthropic',
      },
      { type: 'text', text: '925 ÷ 5 = 185' },
    ]);
    expect(got.usage).toEqual(usage(69, 33));
    expect(got.stop).toBe('end');
  });

  it('tool-use-no-args.json: a text block and a tool_use with empty input', () => {
    const got = answerOfResponse(
      anthropicCodec.decodeResponse(fixtureJson('anthropic/messages/tool-use-no-args.json'), ctx),
    );
    expect(got).toMatchObject({
      calls: [{ id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', name: 'updateIssueList', args: '{}' }],
      stop: 'tool_calls',
      usage: usage(602, 93),
    });
    expect(got.text.startsWith('<thinking>\nThe updateIssueList tool')).toBe(true);
  });

  it('usage: cache writes by TTL, the old single count, thinking tokens, garbage', () => {
    const answer = (u: unknown) =>
      anthropicCodec.decodeResponse(
        { id: 'm', content: [{ type: 'text', text: 'a' }], stop_reason: 'end_turn', usage: u },
        ctx,
      ).usage;
    expect(
      answer({
        input_tokens: 10,
        cache_creation_input_tokens: 300,
        cache_read_input_tokens: 1000,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 50,
        output_tokens_details: { thinking_tokens: 20 },
      }),
    ).toEqual(usage(1310, 50, { cacheRead: 1000, cacheWrite: 100, cacheWrite1h: 200, reasoning: 20 }));
    // No TTL breakdown (older API versions, compatible servers): all 5-minute writes.
    expect(answer({ input_tokens: 5, cache_creation_input_tokens: 40, output_tokens: 2 })).toEqual(
      usage(45, 2, { cacheWrite: 40 }),
    );
    expect(answer({ input_tokens: '5', output_tokens: -1, cache_creation: null })).toEqual(usage(0, 0));
    expect(answer(undefined)).toEqual(usage(0, 0));
  });

  it('stop reasons', () => {
    const stopOf = (stop_reason: unknown, content: unknown[] = [{ type: 'text', text: 'a' }]) =>
      anthropicCodec.decodeResponse({ content, stop_reason, stop_sequence: 'END' }, ctx);
    expect(stopOf('end_turn').stop).toBe('end');
    expect(stopOf('max_tokens').stop).toBe('max_tokens');
    expect(stopOf('model_context_window_exceeded').stop).toBe('max_tokens');
    expect(stopOf('stop_sequence')).toMatchObject({ stop: 'stop_sequence', stopSequence: 'END' });
    expect(stopOf('tool_use').stop).toBe('tool_calls');
    expect(stopOf('pause_turn').stop).toBe('pause');
    expect(stopOf('refusal').stop).toBe('refusal');
    expect(stopOf(null, [{ type: 'tool_use', id: 't', name: 'f', input: {} }]).stop).toBe('tool_calls');
  });

  it('redacted thinking and server tool blocks survive as hub parts', () => {
    const server = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } };
    const results = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const got = anthropicCodec.decodeResponse(
      {
        content: [
          { type: 'redacted_thinking', data: 'ENCRYPTED' },
          server,
          results,
          { type: 'text', text: 'a' },
        ],
        stop_reason: 'end_turn',
      },
      ctx,
    );
    expect(got.parts).toEqual([
      { type: 'thinking', text: '', redacted: 'ENCRYPTED' },
      { type: 'opaque', format: 'anthropic', value: server },
      { type: 'opaque', format: 'anthropic', value: results },
      { type: 'text', text: 'a' },
    ]);
  });

  it('an error object in a 200 answer is thrown, and a non-object is a 502', () => {
    expect(() =>
      anthropicCodec.decodeResponse(
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        ctx,
      ),
    ).toThrow(/Overloaded/);
    const err = (() => {
      try {
        anthropicCodec.decodeResponse('nope', ctx);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(502);
  });
});

describe('anthropic codec: recorded streams decode to the hub, event by event', () => {
  /** The text, thinking and per-block input JSON of a recording, read straight from its deltas. */
  function recorded(file: string) {
    let text = '';
    let thinking = '';
    for (const line of fixtureChunks(file)) {
      const d = JSON.parse(line).delta ?? {};
      text += d.type === 'text_delta' ? d.text : '';
      thinking += d.type === 'thinking_delta' ? d.thinking : '';
    }
    return { text, thinking };
  }

  const cases: Array<{
    file: string;
    id: string;
    calls: Call[];
    stop: HubStop;
    usage: HubUsage;
    signatures?: number;
  }> = [
    {
      file: 'anthropic/messages/text.chunks.txt',
      id: 'msg_01QC4g3HwBThD4BaNtBckFDJ',
      calls: [],
      stop: 'end',
      usage: usage(12, 30),
    },
    {
      file: 'anthropic/messages/thinking.chunks.txt',
      id: 'msg_01Y6V41gqPaKWEw7iPouH7iW',
      calls: [],
      stop: 'end',
      usage: usage(69, 53),
      signatures: 1,
    },
    {
      // The only input_json_delta is "": the call has no arguments (input {}).
      file: 'anthropic/messages/tool-use-no-args.chunks.txt',
      id: 'msg_01GE2RKp1VYsPzdFs3sS9z5S',
      calls: [{ id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', args: '' }],
      stop: 'tool_calls',
      usage: usage(565, 48),
    },
    {
      file: 'anthropic/messages/tool-use-parallel.chunks.txt',
      id: 'msg_011Cd5Uz3EsW7t2zRF3zZGJL',
      calls: [
        { id: 'toolu_01LtEf4h1QW7KCKLsYMuhTNB', name: 'searchDocs', args: '{"query": "alpha"}' },
        { id: 'toolu_016tfZE7otAFSBjhc67wu189', name: 'searchDocs', args: '{"query": "beta"}' },
        { id: 'toolu_01XkU35z8BVWqqc9tijDuLrA', name: 'searchDocs', args: '{"query": "gamma"}' },
      ],
      stop: 'tool_calls',
      usage: usage(798, 110),
    },
    {
      file: 'anthropic/messages/cache-read.chunks.txt',
      id: 'msg_011CczBWmS717HsNJwaC9mWM',
      calls: [],
      stop: 'max_tokens',
      usage: usage(18642, 1, { cacheRead: 18639 }),
    },
    {
      file: 'anthropic/messages/cache-write.chunks.txt',
      id: 'msg_011CczBWezemuqo5xUfertVi',
      calls: [],
      stop: 'max_tokens',
      usage: usage(18642, 1, { cacheWrite: 18639 }),
    },
  ];

  it.each(cases)('$file', ({ file, id, calls, stop, usage: u, signatures = 0 }) => {
    const events = decodeLines(fixtureChunks(file));
    expect(events[0]).toMatchObject({ type: 'start', id, model: expect.stringContaining('claude-sonnet-4') });
    const got = answerOfEvents(events);
    const want = recorded(file);
    expect(got).toMatchObject({ id, text: want.text, thinking: want.thinking, calls, stop, usage: u });
    expect(got.signatures).toHaveLength(signatures);
    expect(got.signatures.every((s) => s.startsWith('anthropic:'))).toBe(true);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('emits events as they arrive: start and the input counts at message_start, text at its delta', () => {
    const dec = anthropicCodec.streamDecoder(streamCtx);
    const lines = fixtureChunks('anthropic/messages/cache-read.chunks.txt');
    expect(dec.push({ event: 'message_start', data: lines[0] })).toEqual([
      { type: 'start', id: 'msg_011CczBWmS717HsNJwaC9mWM', model: 'claude-sonnet-4-6' },
      { type: 'usage', usage: usage(18642, 1, { cacheRead: 18639 }) },
    ]);
    expect(dec.push({ event: 'content_block_start', data: lines[1] })).toEqual([]);
    expect(dec.push({ event: 'ping', data: lines[2] })).toEqual([]);
    expect(dec.push({ event: 'content_block_delta', data: lines[3] })).toEqual([
      { type: 'text', text: 'OK' },
    ]);
  });

  it('the tool index counts tool calls only, after text and thinking blocks', () => {
    const events = decodeLines(fixtureChunks('anthropic/messages/tool-use-no-args.chunks.txt'));
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ index: 0 });
  });

  it('an error event is an error (overloaded: 529), and the rest is ignored', () => {
    const lines = fixtureChunks('anthropic/messages/text.chunks.txt');
    const events = decodeLines([
      lines[0],
      lines[1],
      JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      lines[3],
    ]);
    expect(events.map((e) => e.type)).toEqual(['start', 'usage', 'error']);
    expect(events[2]).toEqual({
      type: 'error',
      error: {
        status: 529,
        kind: 'overloaded',
        message: 'Overloaded',
        code: 'overloaded_error',
        param: null,
      },
    });
  });

  it('a stream cut before message_delta ends in an error; message_delta without message_stop is complete', () => {
    const lines = fixtureChunks('anthropic/messages/text.chunks.txt');
    expect(decodeLines(lines.slice(0, 5)).at(-1)).toMatchObject({ type: 'error', error: { status: 502 } });
    expect(decodeLines(lines.slice(0, -1)).at(-1)).toMatchObject({ type: 'usage' });
    expect(decodeLines(lines.slice(0, -1)).some((e) => e.type === 'error')).toBe(false);
  });

  it('newer message_delta usage with input counts replaces the start counts; thinking tokens', () => {
    const events = decodeLines([
      JSON.stringify({
        type: 'message_start',
        message: { id: 'msg_1', model: 'm', usage: { input_tokens: 0, output_tokens: 0 } },
      }),
      JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }),
      JSON.stringify({ type: 'content_block_stop', index: 0 }),
      JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
        usage: {
          input_tokens: 7,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: null,
          output_tokens: 12,
          output_tokens_details: { thinking_tokens: 5 },
        },
      }),
      JSON.stringify({ type: 'message_stop' }),
    ]);
    expect(answerOfEvents(events)).toMatchObject({
      stop: 'stop_sequence',
      stopSequence: '###',
      usage: usage(107, 12, { cacheRead: 100, reasoning: 5 }),
    });
  });

  it('redacted thinking, and a server tool block gathered whole with its streamed input', () => {
    const events = decodeLines([
      JSON.stringify({ type: 'message_start', message: { id: 'msg_1', model: 'm', usage: {} } }),
      JSON.stringify({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'redacted_thinking', data: 'RED' },
      }),
      JSON.stringify({ type: 'content_block_stop', index: 0 }),
      JSON.stringify({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      }),
      JSON.stringify({
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"query":' },
      }),
      JSON.stringify({
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '"cats"}' },
      }),
      JSON.stringify({ type: 'content_block_stop', index: 1 }),
      JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 3 },
      }),
      JSON.stringify({ type: 'message_stop' }),
    ]);
    const got = answerOfEvents(events);
    expect(got.redacted).toEqual(['RED']);
    expect(got.opaque).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'cats' } },
    ]);
    expect(got.calls).toEqual([]);
  });

  it('odd input never throws: garbage lines, unknown events, deltas for unknown blocks', () => {
    const dec = anthropicCodec.streamDecoder(streamCtx);
    for (const data of [
      '',
      'not json',
      '[]',
      'null',
      '{"type":"whatever"}',
      '{"type":"content_block_delta","index":9,"delta":{"type":"input_json_delta","partial_json":"{"}}',
    ])
      expect(() => dec.push({ data })).not.toThrow();
    expect(() => dec.end()).not.toThrow();
  });
});

describe('anthropic codec: text and thinking deltas read without the full parse', () => {
  const streams = [
    'cache-read',
    'cache-write',
    'text',
    'thinking',
    'tool-use-no-args',
    'tool-use-parallel',
  ].map((name) => `anthropic/messages/${name}.chunks.txt`);

  it('a recorded event read as a delta is one, with the text the full parse gives', () => {
    let read = 0;
    for (const file of streams)
      for (const line of fixtureChunks(file)) {
        const events = textDeltaEvents(line);
        if (events === undefined) continue;
        read++;
        const { type, delta } = JSON.parse(line);
        expect(type).toBe('content_block_delta');
        const text = delta.type === 'text_delta' ? delta.text : delta.thinking;
        expect(events).toEqual(
          text ? [{ type: delta.type === 'text_delta' ? 'text' : 'thinking', text }] : [],
        );
      }
    expect(read).toBeGreaterThan(20);
  });

  it.each(streams)('%s: the same events as when every event takes the full parse', (file) => {
    expect(decodeLines(fixtureChunks(file))).toEqual(decodeLines(respacedChunks(file)));
  });

  const event = (delta: string) => `{"type":"content_block_delta","index":3,"delta":${delta}}`;

  it('escapes read as JSON reads them; the kind comes from the delta type', () => {
    expect(textDeltaEvents(event('{"type":"text_delta","text":"say \\"hi\\" caf\\u00e9\\n"}'))).toEqual([
      { type: 'text', text: 'say "hi" café\n' },
    ]);
    expect(textDeltaEvents(event('{"type":"thinking_delta","thinking":"\\ud83d\\ude00"}'))).toEqual([
      { type: 'thinking', text: '😀' },
    ]);
    expect(textDeltaEvents(event('{"type":"text_delta","text":""}'))).toEqual([]);
  });

  it('any other event is left to the full parse', () => {
    const others = [
      event('{"type":"text_delta","thinking":"a"}'),
      event('{"type":"thinking_delta","text":"a"}'),
      event('{"type":"signature_delta","signature":"abc"}'),
      event('{"type":"input_json_delta","partial_json":"{\\"a\\""}'),
      event('{"type":"text_delta","text":"a","extra":1}'),
      event('{"type":"text_delta","text":"bad \\x escape"}'),
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"a"}}',
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    ];
    for (const e of others) expect(textDeltaEvents(e), e).toBeUndefined();
  });
});

describe('anthropic codec: same-format round trips', () => {
  const files = [
    'anthropic/messages/text.json',
    'anthropic/messages/thinking.json',
    'anthropic/messages/tool-use-no-args.json',
  ];

  it.each(files)('%s: decode, encode, decode gives the same answer and the same body', (file) => {
    const body = fixtureJson(file);
    const hub = anthropicCodec.decodeResponse(body, ctx);
    const encoded = anthropicCodec.encodeResponse(hub, ctx) as any;
    expect(answerOfResponse(anthropicCodec.decodeResponse(encoded, ctx))).toEqual(answerOfResponse(hub));
    expect(encoded).toMatchObject({
      id: body.id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: body.content,
      stop_reason: body.stop_reason,
      stop_sequence: null,
    });
    expect(encoded.usage).toEqual({
      input_tokens: body.usage.input_tokens,
      cache_creation_input_tokens: body.usage.cache_creation_input_tokens,
      cache_read_input_tokens: body.usage.cache_read_input_tokens,
      cache_creation: body.usage.cache_creation,
      output_tokens: body.usage.output_tokens,
    });
  });

  const streams = [
    'anthropic/messages/text.chunks.txt',
    'anthropic/messages/thinking.chunks.txt',
    'anthropic/messages/tool-use-no-args.chunks.txt',
    'anthropic/messages/tool-use-parallel.chunks.txt',
    'anthropic/messages/cache-read.chunks.txt',
    'anthropic/messages/cache-write.chunks.txt',
  ];

  it.each(streams)('%s: decode, encode, decode gives the same events and the same blocks', (file) => {
    const events = decodeLines(fixtureChunks(file));
    const sse = encodeEvents(events);
    const fs = checkBlocks(sse);
    // Frames written directly are the same bytes as their objects stringified.
    expect(restringified(sse)).toBe(sse);
    const again = decodeLines(fs.map((f) => JSON.stringify(f.data)));
    expect(answerOfEvents(again)).toEqual(answerOfEvents(events));
    // The same block starts as recorded (tool blocks without the recorded `caller`).
    const starts = (list: any[]) =>
      list
        .filter((d) => d.type === 'content_block_start')
        .map((d) => ({ index: d.index, type: d.content_block.type, id: d.content_block.id }));
    expect(starts(fs.map((f) => f.data))).toEqual(starts(fixtureChunks(file).map((l) => JSON.parse(l))));
    // message_start carries the recorded input counts.
    const recordedStart = JSON.parse(fixtureChunks(file)[0]).message.usage;
    expect(fs[0].data.message.usage).toMatchObject({
      input_tokens: recordedStart.input_tokens,
      cache_read_input_tokens: recordedStart.cache_read_input_tokens,
      cache_creation_input_tokens: recordedStart.cache_creation_input_tokens,
    });
  });

  it('message_start and message_delta written directly: odd ids, models and stop sequences, no usage', () => {
    const events: HubEvent[] = [
      { type: 'start', id: 'msg_"quoted"\\', model: 'model "x" \u00e9' },
      { type: 'text', text: 'hi' },
      { type: 'finish', stop: 'stop_sequence', stopSequence: '\n"###"\u2028' },
    ];
    const sse = encodeEvents(events);
    expect(restringified(sse)).toBe(sse);
    const fs = frames(sse);
    expect(fs[0].data.message).toMatchObject({ id: 'msg_"quoted"\\', model: 'model "x" \u00e9' });
    expect(fs.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'stop_sequence', stop_sequence: '\n"###"\u2028' },
      usage: {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 0,
      },
    });
  });
});

/** SSE text with every frame's payload parsed and stringified again (the bytes an object-built frame has). */
function restringified(sse: string): string {
  return frames(sse)
    .map((f) => `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`)
    .join('');
}

describe('anthropic codec: encoder output through the official Anthropic client', () => {
  let server: Server;
  let client: Anthropic;
  let next: { status: number; type: string; body: string } = {
    status: 200,
    type: 'application/json',
    body: '{}',
  };
  const seen: Array<{ url?: string; body: any }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => {
        raw += d;
      });
      req.on('end', () => {
        seen.push({ url: req.url, body: JSON.parse(raw) });
        res.writeHead(next.status, { 'content-type': next.type });
        res.end(next.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const params = {
    model: 'gateway-model',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'hi' }],
  };

  const serveStream = (events: HubEvent[]) => {
    const body = encodeEvents(events);
    checkBlocks(body);
    next = { status: 200, type: 'text/event-stream', body };
    return body;
  };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return client.messages.stream(params).finalMessage();
  };
  const serveJson = (res: HubResponse) => {
    next = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(anthropicCodec.encodeResponse(res, ctx)),
    };
  };

  const start: HubEvent = { type: 'start', id: 'chatcmpl-abc', model: 'gpt-5', created: 1770000000 };

  it('a whole answer: thinking (signed), text, a tool call with a Gemini signature in its id, usage', async () => {
    serveJson({
      id: 'msg_01abc',
      model: 'claude-sonnet-4-5',
      created: 1770000000,
      parts: [
        { type: 'thinking', text: 'Let me look.', signature: 'anthropic-sig', signatureFormat: 'anthropic' },
        { type: 'text', text: 'Checking both.' },
        { type: 'text', text: '' },
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
      usage: usage(1000, 40, { cacheRead: 600, cacheWrite: 100, cacheWrite1h: 200, reasoning: 10 }),
    });
    const got = await client.messages.create(params);
    expect(seen.at(-1)?.url).toBe('/v1/messages');
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
    const got = await client.messages.create(params);
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
    const got = await client.messages.create(params);
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
      const got = await client.messages.create(params);
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
    const got = await client.messages.stream(params).finalMessage();
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
    const got = await client.messages.stream(params).finalMessage();
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
    const got = await client.messages.stream(params).finalMessage();
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
    next = { status: 200, type: 'text/event-stream', body };
    const err = await client.messages
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
    next = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await client.messages.create(params).catch((x) => x);
    expect(err).toBeInstanceOf(cls);
    expect(err.error).toEqual({
      type: 'error',
      error: { type, message: 'went wrong (request id: req-9)' },
      request_id: 'req-9',
    });
  });
});

describe('anthropic codec: request decoding', () => {
  const decode = (body: Record<string, unknown>) => anthropicCodec.decodeRequest(body, ctx);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]).toString('base64');
  const base = { model: 'claude-sonnet-4-5', max_tokens: 1024 };
  const user = (content: unknown) => ({ role: 'user', content });
  const badRequestOf = (body: Record<string, unknown>): RelayError => {
    try {
      decode(body);
    } catch (e) {
      expect(e).toBeInstanceOf(RelayError);
      expect((e as RelayError).status).toBe(400);
      return e as RelayError;
    }
    throw new Error('expected a 400');
  };

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

  it.each([
    [{ model: 'm', messages: [user('x')] }, 'max_tokens: Field required'],
    [{ max_tokens: 5, messages: [user('x')] }, 'model: Field required'],
    [{ ...base }, 'messages: Field required'],
    [{ ...base, messages: [] }, 'messages: at least one message is required'],
    [
      { ...base, max_tokens: 0, messages: [user('x')] },
      'max_tokens: Input should be greater than or equal to 1',
    ],
    [{ ...base, max_tokens: '100', messages: [user('x')] }, 'max_tokens: Input should be a valid integer'],
    [
      { ...base, temperature: 1.5, messages: [user('x')] },
      'temperature: Input should be less than or equal to 1',
    ],
    [
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      "messages.0.role: Input should be 'user' or 'assistant'",
    ],
    [{ ...base, messages: [user(null)] }, 'messages.0.content: Field required'],
    [{ ...base, messages: [user(42)] }, 'messages.0.content: Input should be a valid string or a valid list'],
    [{ ...base, messages: [user('')] }, 'messages.0: all messages must have non-empty content'],
    [
      { ...base, messages: [user([{ type: 'text', text: '  ' }])] },
      'messages.0.content.0.text: text content blocks must contain non-whitespace text',
    ],
    [
      { ...base, messages: [user([{ type: 'input_text', text: 'x' }])] },
      "messages.0.content.0: Input tag 'input_text' found using 'type' does not match any of the expected tags: 'text', 'image'",
    ],
    [{ ...base, messages: [user([{ text: 'x' }])] }, 'messages.0.content.0.type: Field required'],
    [{ ...base, messages: [user(['x'])] }, 'messages.0.content.0: Input should be a valid dictionary'],
    [
      { ...base, messages: [user([{ type: 'text', text: 5 }])] },
      'messages.0.content.0.text: Input should be a valid string',
    ],
    [
      {
        ...base,
        messages: [
          user([{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA' } }]),
        ],
      },
      "messages.0.content.0.source.media_type: Input should be 'image/jpeg'",
    ],
    [{ ...base, messages: [user([{ type: 'image' }])] }, 'messages.0.content.0.source: Field required'],
    [
      { ...base, messages: [user([{ type: 'tool_use', id: 't', name: 'f', input: {} }])] },
      'messages.0.content.0: `tool_use` blocks can only be in `assistant` messages',
    ],
    [
      {
        ...base,
        messages: [user('x'), { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't' }] }],
      },
      'messages.1.content.0: `tool_result` blocks can only be in `user` messages',
    ],
    [
      { ...base, messages: [user([{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }])] },
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x',
    ],
    [
      {
        ...base,
        messages: [
          user('x'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: 'x' }] },
        ],
      },
      'messages.1.content.0.input: Input should be a valid dictionary',
    ],
    [
      {
        ...base,
        messages: [user('x'), { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }],
      },
      'messages.1.content.0.signature: Field required',
    ],
    [
      { ...base, system: [{ type: 'image' }], messages: [user('x')] },
      "system.0: Input tag 'image' found using 'type' does not match any of the expected tags: 'text'",
    ],
    [
      { ...base, tools: [{ name: 'f' }], messages: [user('x')] },
      'tools.0.custom.input_schema: Field required',
    ],
    [
      { ...base, tools: [{ name: 'f', input_schema: { type: 'string' } }], messages: [user('x')] },
      "tools.0.custom.input_schema.type: Input should be 'object'",
    ],
    [
      { ...base, tools: [{ input_schema: { type: 'object' } }], messages: [user('x')] },
      'tools.0.name: Field required',
    ],
    [
      {
        ...base,
        tools: [
          { name: 'f', input_schema: { type: 'object' } },
          { name: 'f', input_schema: { type: 'object' } },
        ],
        messages: [user('x')],
      },
      'Tool names must be unique',
    ],
    [{ ...base, tools: {}, messages: [user('x')] }, 'tools: Input should be a valid list'],
    [
      { ...base, tool_choice: { type: 'tool', name: 'nope' }, messages: [user('x')] },
      "Tool 'nope' named in tool_choice is not in tools",
    ],
    [
      { ...base, tool_choice: 'auto', messages: [user('x')] },
      'tool_choice: Input should be a valid dictionary',
    ],
    [
      { ...base, tool_choice: { type: 'required' }, messages: [user('x')] },
      "tool_choice: Input tag 'required'",
    ],
    [
      { ...base, thinking: { type: 'enabled' }, messages: [user('x')] },
      'thinking.enabled.budget_tokens: Field required',
    ],
    [
      { ...base, thinking: { type: 'enabled', budget_tokens: 500 }, messages: [user('x')] },
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    ],
    [{ ...base, thinking: { type: 'on' }, messages: [user('x')] }, "thinking: Input tag 'on'"],
    [
      { ...base, stop_sequences: 'STOP', messages: [user('x')] },
      'stop_sequences: Input should be a valid list',
    ],
    [
      { ...base, stop_sequences: [1], messages: [user('x')] },
      'stop_sequences.0: Input should be a valid string',
    ],
    [
      { ...base, metadata: { user_id: 5 }, messages: [user('x')] },
      'metadata.user_id: Input should be a valid string',
    ],
    [{ ...base, stream: 'yes', messages: [user('x')] }, 'stream: Input should be a valid boolean'],
  ])('400 %#: %s', (body, message) => {
    const err = badRequestOf(body as Record<string, unknown>);
    expect(err.message).toContain(message);
  });

  it('a tool_result must answer an earlier tool_use, not a server tool', () => {
    const err = badRequestOf({
      ...base,
      messages: [
        user('x'),
        {
          role: 'assistant',
          content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }],
        },
        user([{ type: 'tool_result', tool_use_id: 'srvtoolu_1', content: 'r' }]),
      ],
    });
    expect(err.message).toContain('srvtoolu_1');
  });

  it('odd input never crashes: every malformed shape is a 400', () => {
    const odd = [null, 0, 'x', [], {}, true, [null], [{}], [{ type: null }], { type: 'text' }];
    for (const v of odd)
      for (const body of [
        { ...base, messages: v },
        { ...base, messages: [{ role: 'user', content: v }] },
        { ...base, messages: [{ role: 'user', content: [v] }] },
        { ...base, messages: [user('x')], system: v },
        { ...base, messages: [user('x')], tools: v },
        { ...base, messages: [user('x')], tools: [v] },
        { ...base, messages: [user('x')], tool_choice: v },
        { ...base, messages: [user('x')], thinking: v },
        { ...base, messages: [user('x')], metadata: v },
        { ...base, messages: [user([{ type: 'tool_result', tool_use_id: v, content: v }])] },
        { ...base, messages: [user([{ type: 'image', source: v }])] },
        { ...base, messages: [user([{ type: 'document', source: v }])] },
      ]) {
        try {
          decode(body as Record<string, unknown>);
        } catch (e) {
          expect(e).toBeInstanceOf(RelayError);
          expect((e as RelayError).status).toBe(400);
        }
      }
  });
});

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
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');

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

describe('anthropic codec: errors', () => {
  it('decodes the recorded Anthropic error body', () => {
    expect(
      anthropicCodec.decodeError(400, fixtureText('anthropic/messages/error-invalid-request.json')),
    ).toEqual({
      status: 400,
      kind: 'invalid_request',
      message:
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: srvtoolu_issue_17366_invalid. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      code: 'invalid_request_error',
      param: null,
    });
  });

  it.each([
    [
      401,
      '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      'authentication',
    ],
    [402, '{"type":"error","error":{"type":"billing_error","message":"credit balance too low"}}', 'quota'],
    [429, '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', 'rate_limit'],
    [529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'overloaded'],
    [500, '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}', 'server'],
    [504, '{"type":"error","error":{"type":"timeout_error","message":"timed out"}}', 'timeout'],
    [413, '{"type":"error","error":{"type":"request_too_large","message":"too big"}}', 'request_too_large'],
    [503, '{"type":"error","error":{"type":"something_new","message":"busy"}}', 'overloaded'],
    [
      401,
      '{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
      'authentication',
    ],
    [502, '<html>Bad Gateway</html>', 'server'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = anthropicCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error'],
    ['authentication', 401, 'authentication_error'],
    ['quota', 402, 'billing_error'],
    ['permission', 403, 'permission_error'],
    ['not_found', 404, 'not_found_error'],
    ['request_too_large', 413, 'request_too_large'],
    ['rate_limit', 429, 'rate_limit_error'],
    ['server', 500, 'api_error'],
    ['timeout', 504, 'timeout_error'],
    ['overloaded', 529, 'overloaded_error'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type) => {
    const out = anthropicCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out).toEqual({
      status,
      body: { type: 'error', error: { type, message: 'm (request id: req-1)' }, request_id: 'req-1' },
    });
    expect(anthropicCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });

  it("an error's own status is kept", () => {
    expect(
      anthropicCodec.encodeError({ status: 422, kind: 'invalid_request', message: 'm' }, 'r').status,
    ).toBe(422);
  });
});
