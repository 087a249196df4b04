import { describe, expect, it } from 'vitest';
import { packCallId } from '../src/relay/formats/common.ts';
import { geminiCodec } from '../src/relay/formats/gemini/index.ts';
import type { HubEvent } from '../src/relay/formats/hub.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import {
  answerOfEvents,
  answerOfResponse,
  chunksOf,
  ctx,
  DIR,
  decodeLines,
  encodeEvents,
  sseData,
  streamCtx,
  usage,
} from './support/gemini-codec.ts';

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
