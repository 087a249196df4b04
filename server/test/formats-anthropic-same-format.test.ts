import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/relay/formats/anthropic/index.ts';
import { textDeltaEvents } from '../src/relay/formats/anthropic/stream-decoder.ts';
import type { HubEvent } from '../src/relay/formats/hub.ts';
import {
  answerOfEvents,
  answerOfResponse,
  checkBlocks,
  ctx,
  decodeLines,
  encodeEvents,
  frames,
  restringified,
} from './support/anthropic-codec.ts';
import { fixtureChunks, fixtureJson, respacedChunks } from './support/fixtures.ts';

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
