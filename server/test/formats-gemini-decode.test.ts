import { describe, expect, it } from 'vitest';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import { PartialArgsWriter } from '../src/relay/formats/gemini/partial-args.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import {
  answerOfEvents,
  answerOfResponse,
  ctx,
  DIR,
  decodeLines,
  streamCtx,
  usage,
} from './support/gemini-codec.ts';

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
