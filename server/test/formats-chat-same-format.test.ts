import { describe, expect, it } from 'vitest';
import { mayMatter } from '../src/relay/answer/stream/format-stream.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { textDeltaOf } from '../src/relay/formats/chat/stream-decoder.ts';
import type { HubEvent } from '../src/relay/formats/hub.ts';
import {
  answerOfEvents,
  answerOfResponse,
  ctx,
  decodeLines,
  encodeEvents,
  sseData,
  streamCtx,
  usage,
} from './support/chat-codec.ts';
import { fixtureChunks, fixtureJson, respacedChunks } from './support/fixtures.ts';

describe('chat codec: text deltas read without the full parse', () => {
  const streams = [
    'openai/chat/text.chunks.txt',
    'openai/chat/text-then-tool-call.chunks.txt',
    'openai/chat/azure-content-filter-reasoning.chunks.txt',
    'deepseek/chat/text.chunks.txt',
    'deepseek/chat/reasoning.chunks.txt',
    'deepseek/chat/reasoning-tool-call.chunks.txt',
    'mistral/chat/text.chunks.txt',
    'mistral/chat/tool-call.chunks.txt',
    'xai/chat/text.chunks.txt',
    'xai/chat/tool-call.chunks.txt',
  ];

  it('a recorded chunk read as a text delta is one, with the text the full parse gives', () => {
    let read = 0;
    for (const file of streams)
      for (const line of fixtureChunks(file)) {
        const text = textDeltaOf(line);
        if (text === undefined) continue;
        read++;
        const chunk = JSON.parse(line);
        expect(chunk.choices).toHaveLength(1);
        expect(chunk.choices[0].delta).toEqual({ content: text });
        expect(chunk.choices[0].finish_reason ?? null).toBeNull();
        expect(chunk.usage ?? null).toBeNull();
        expect(chunk.error).toBeUndefined();
      }
    // OpenAI's and Mistral's text chunks take this path; the count shows the test read some.
    expect(read).toBeGreaterThan(20);
  });

  it('a relayed stream decodes every recorded chunk that carries usage or an error, and the finish when traced', () => {
    let skipped = 0;
    let finishes = 0;
    for (const file of streams)
      for (const line of fixtureChunks(file)) {
        if (line === '[DONE]') continue;
        const parsed = JSON.parse(line);
        const usageOrError =
          (parsed.usage !== null && typeof parsed.usage === 'object') || parsed.error !== undefined;
        const finish = parsed.choices?.some((c: any) => typeof c.finish_reason === 'string');
        if (usageOrError) expect(mayMatter(line), line).toBe(true);
        else if (!mayMatter(line)) skipped++;
        if (usageOrError || finish) expect(mayMatter(line, true), line).toBe(true);
        if (finish && !usageOrError) {
          finishes++;
          // An untraced request does not need the finish reason: its chunk passes unread.
          expect(mayMatter(line), line).toBe(false);
        }
      }
    // Text chunks (finish_reason null, usage null) pass unread, and so do finish chunks without usage.
    expect(skipped).toBeGreaterThan(20);
    expect(finishes).toBeGreaterThan(3);
    const finish = (reason: string) => `{"index":1,"delta":{},"finish_reason"${reason}}`;
    expect(mayMatter(chunk(`${delta('"a"')},${finish(' : "stop"')}`), true)).toBe(true);
    expect(mayMatter(chunk(`${delta('"a"')},${finish(' : "stop"')}`))).toBe(false);
    expect(mayMatter(chunk(`${delta('"a"')},${finish(':null')}`), true)).toBe(false);
    for (const traced of [false, true]) {
      expect(mayMatter(chunk(delta('"a"'), ',"usage":null'), traced)).toBe(false);
      expect(mayMatter(chunk(delta('"a"'), ',"usage": {"total_tokens":2}'), traced)).toBe(true);
      expect(mayMatter('{"usageMetadata":{"totalTokenCount":2}}', traced)).toBe(true);
      expect(mayMatter('{"type":"error","error":{"message":"x"}}', traced)).toBe(true);
    }
  });

  it.each(streams)('%s: the same events as when every chunk takes the full parse', (file) => {
    expect(decodeLines(fixtureChunks(file))).toEqual(decodeLines(respacedChunks(file)));
  });

  const chunk = (choice: string, extra = '') =>
    `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[${choice}]${extra}}`;
  const delta = (content: string) => `{"index":0,"delta":{"content":${content}},"finish_reason":null}`;

  it('escapes in the text read as JSON reads them', () => {
    for (const text of ['say "hi"', 'back\\slash', 'line\nbreak', 'caf\u00e9', '\ud83d\ude00', '你好', ''])
      expect(textDeltaOf(chunk(delta(JSON.stringify(text))))).toBe(text);
    expect(textDeltaOf(chunk(delta('"caf\\u00e9 \\ud83d\\ude00"')))).toBe('café 😀');
    // xAI's chunks leave finish_reason out until the last one.
    expect(textDeltaOf(chunk('{"index":0,"delta":{"content":"a"}}'))).toBe('a');
    expect(textDeltaOf(chunk(delta('"\\\\u00e9 \\\\x"')))).toBe('\\u00e9 \\x');
  });

  it('anything more than a text delta is left to the full parse', () => {
    const others = [
      chunk('{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}'),
      chunk('{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}'),
      chunk('{"index":0,"delta":{"content":"a","reasoning_content":"b"},"finish_reason":null}'),
      chunk(
        '{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}',
      ),
      chunk('{"index":1,"delta":{"content":"a"},"finish_reason":null}'),
      chunk(delta('"a"'), ',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}'),
      chunk(delta('"a"'), ',"error":"boom"'),
      chunk(delta('"a"'), ',"x":{"y":1}'),
      chunk(delta('null')),
      chunk(delta('"bad \\x escape"')),
      chunk(delta('"raw\nnewline"')),
      `{"wrapper":${chunk(delta('"a"'))}}`,
    ];
    for (const c of others) expect(textDeltaOf(c), c).toBeUndefined();
  });
});

describe('chat codec: dialects of the OpenAI-compatible servers', () => {
  it.each([
    [
      'OpenAI',
      {
        prompt_tokens: 100,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 40 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
      usage(100, 50, 40, 20),
    ],
    [
      'DeepSeek cache hits only',
      { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 },
      usage(100, 5, 64),
    ],
    [
      'xAI reasoning outside completion_tokens',
      {
        prompt_tokens: 10,
        completion_tokens: 2,
        total_tokens: 40,
        completion_tokens_details: { reasoning_tokens: 28 },
      },
      usage(10, 30, 0, 28),
    ],
    [
      'a Claude gateway with cache writes',
      {
        prompt_tokens: 1200,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 200 },
        cache_creation_input_tokens: 1000,
      },
      usage(1200, 9, 200, 0, 1000),
    ],
    [
      'Responses names',
      { input_tokens: 7, output_tokens: 3, input_tokens_details: { cached_tokens: 2 } },
      usage(7, 3, 2),
    ],
    ['garbage', { prompt_tokens: '12', completion_tokens: -4, prompt_tokens_details: null }, usage(0, 0)],
  ])('usage: %s', (_name, u, want) => {
    const body = {
      id: 'x',
      model: 'm',
      created: 1,
      choices: [{ index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: 'stop' }],
      usage: u,
    };
    expect(chatCodec.decodeResponse(body, ctx).usage).toEqual(want);
  });

  it('thinking as `reasoning` (OpenRouter, vLLM) and as Mistral content chunks', () => {
    const openrouter = {
      choices: [
        { message: { role: 'assistant', content: 'ok', reasoning: 'thought' }, finish_reason: 'stop' },
      ],
    };
    expect(answerOfResponse(chatCodec.decodeResponse(openrouter, ctx))).toMatchObject({
      thinking: 'thought',
      text: 'ok',
    });
    const mistral = {
      choices: [
        {
          message: {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'let me think' }] },
              { type: 'text', text: 'answer' },
            ],
          },
          finish_reason: 'stop',
        },
      ],
    };
    const got = chatCodec.decodeResponse(mistral, ctx);
    expect(got.parts).toEqual([
      { type: 'thinking', text: 'let me think' },
      { type: 'text', text: 'answer' },
    ]);
    expect(got.model).toBe('gateway-model');
    const stream = decodeLines([
      JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { reasoning: 'a' } }] }),
      JSON.stringify({
        id: 'c',
        choices: [
          { index: 0, delta: { content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'b' }] }] } },
        ],
      }),
      JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 'c' }, finish_reason: 'stop' }] }),
    ]);
    expect(answerOfEvents(stream)).toMatchObject({ thinking: 'ab', text: 'c', stop: 'end' });
  });

  it('a refusal and the legacy function_call answer', () => {
    const refused = {
      choices: [
        { message: { role: 'assistant', content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' },
      ],
    };
    expect(chatCodec.decodeResponse(refused, ctx).parts).toEqual([
      { type: 'refusal', text: 'I cannot help.' },
    ]);
    const legacy = {
      choices: [
        {
          message: { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
          finish_reason: 'function_call',
        },
      ],
    };
    const got = chatCodec.decodeResponse(legacy, ctx);
    expect(got.stop).toBe('tool_calls');
    expect(got.parts[0]).toMatchObject({
      type: 'tool_call',
      name: 'f',
      args: '{}',
      id: expect.stringMatching(/^call_/),
    });
  });

  it('only the first choice of an n>1 stream is read', () => {
    const got = answerOfEvents(
      decodeLines([
        JSON.stringify({
          id: 'c',
          choices: [
            { index: 0, delta: { content: 'zero' } },
            { index: 1, delta: { content: 'one' } },
          ],
        }),
        JSON.stringify({ id: 'c', choices: [{ index: 1, delta: {}, finish_reason: 'length' }] }),
        JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      ]),
    );
    expect(got).toMatchObject({ text: 'zero', stop: 'end' });
  });
});

describe('chat codec: same-format round trips', () => {
  const files = [
    'openai/chat/text.json',
    'deepseek/chat/reasoning.json',
    'deepseek/chat/reasoning-tool-call.json',
    'xai/chat/tool-call.json',
    'mistral/chat/tool-call.json',
  ];

  it.each(files)('%s: decode, encode, decode gives the same answer', (file) => {
    const body = fixtureJson(file);
    const hub = chatCodec.decodeResponse(body, ctx);
    const encoded = chatCodec.encodeResponse(hub, ctx) as any;
    expect(answerOfResponse(chatCodec.decodeResponse(encoded, ctx))).toEqual(answerOfResponse(hub));
    const msg = encoded.choices[0].message;
    expect(encoded).toMatchObject({
      id: body.id,
      object: 'chat.completion',
      created: body.created,
      model: body.model,
    });
    expect(encoded.choices[0].finish_reason).toBe(body.choices[0].finish_reason);
    expect(msg.content ?? '').toBe(body.choices[0].message.content ?? '');
    expect(msg.reasoning_content).toBe(body.choices[0].message.reasoning_content);
    expect(
      (msg.tool_calls ?? []).map((c: any) => [c.id, c.type, c.function.name, c.function.arguments]),
    ).toEqual(
      (body.choices[0].message.tool_calls ?? []).map((c: any) => [
        c.id,
        'function',
        c.function.name,
        c.function.arguments,
      ]),
    );
    expect(encoded.usage.prompt_tokens).toBe(body.usage.prompt_tokens);
    expect(encoded.usage.total_tokens).toBe(body.usage.total_tokens);
  });

  const streams = [
    'openai/chat/text-then-tool-call.chunks.txt',
    'deepseek/chat/reasoning-tool-call.chunks.txt',
    'xai/chat/text.chunks.txt',
    'mistral/chat/tool-call.chunks.txt',
    'openai/chat/azure-content-filter-reasoning.chunks.txt',
  ];

  it.each(streams)('%s: decode, encode, decode gives the same events', (file) => {
    const events = decodeLines(fixtureChunks(file));
    const sse = encodeEvents(events);
    const payloads = sseData(sse);
    expect(payloads.at(-1)).toBe('[DONE]');
    const again = decodeLines(payloads.slice(0, -1));
    expect(answerOfEvents(again)).toEqual(answerOfEvents(events));
    // OpenAI's order: role chunk first, finish chunk, then the usage chunk with no choices.
    const chunks = payloads.slice(0, -1).map((p) => JSON.parse(p));
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], object: 'chat.completion.chunk' });
    expect(chunks.at(-2).choices[0]).toMatchObject({ delta: {}, finish_reason: expect.any(String) });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('every chunk is compact JSON in OpenAI key order, text deltas included', () => {
    const enc = chatCodec.streamEncoder(streamCtx);
    const events: HubEvent[] = [
      { type: 'start', id: 'chatcmpl-"q"', model: 'm/ü', created: 1770933892 },
      { type: 'thinking', text: 'why "so"' },
      { type: 'text', text: 'line\nbreak 😀' },
      { type: 'refusal', text: 'no' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(3, 4) },
    ];
    const payloads = sseData(events.map((e) => enc.push(e)).join('') + enc.end()).slice(0, -1);
    expect(payloads).toHaveLength(6);
    for (const p of payloads) {
      const c = JSON.parse(p);
      expect(p).toBe(JSON.stringify(c));
      expect(Object.keys(c).slice(0, 5)).toEqual(['id', 'object', 'created', 'model', 'choices']);
      expect(c).toMatchObject({ id: 'chatcmpl-"q"', model: 'm/ü', created: 1770933892 });
    }
    // Byte for byte what OpenAI sends, its field order included.
    const frame = (delta: object) =>
      JSON.stringify({
        id: 'chatcmpl-"q"',
        object: 'chat.completion.chunk',
        created: 1770933892,
        model: 'm/ü',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      });
    expect(payloads.slice(1, 4)).toEqual([
      frame({ reasoning_content: 'why "so"' }),
      frame({ content: 'line\nbreak 😀' }),
      frame({ refusal: 'no' }),
    ]);
  });

  it('without include_usage there is no usage chunk', () => {
    const events = decodeLines(fixtureChunks('xai/chat/text.chunks.txt'));
    const chunks = sseData(encodeEvents(events, { ...streamCtx, includeUsage: false }));
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.slice(0, -1).every((p) => JSON.parse(p).choices.length === 1)).toBe(true);
  });
});
