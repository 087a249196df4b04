import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import type { HubStop, HubUsage } from '../src/relay/formats/hub.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import {
  answerOfEvents,
  answerOfResponse,
  type Call,
  ctx,
  decodeLines,
  emptyAnswer,
  streamCtx,
  usage,
} from './support/anthropic-codec.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';

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
