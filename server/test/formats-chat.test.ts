import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/errors.ts';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import { textDeltaOf } from '../src/relay/formats/chat/stream-decoder.ts';
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
import { mayMatter } from '../src/relay/stream/format-stream.ts';
import { fixtureChunks, fixtureJson, fixtureText, respacedChunks } from './support/fixtures.ts';

const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
const streamCtx: CodecContext = { ...ctx, stream: true, includeUsage: true };

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
}

/** What a client would see of an answer: its texts, thinking, calls, stop and usage. */
interface Answer {
  id?: string;
  text: string;
  thinking: string;
  refusal: string;
  calls: Call[];
  stop?: HubStop;
  usage?: HubUsage;
}

function answerOfParts(parts: HubPart[]): Answer {
  const a: Answer = { text: '', thinking: '', refusal: '', calls: [] };
  for (const p of parts) {
    if (p.type === 'text') a.text += p.text;
    else if (p.type === 'thinking') a.thinking += p.text;
    else if (p.type === 'refusal') a.refusal += p.text;
    else if (p.type === 'tool_call') a.calls.push({ id: p.id, name: p.name, args: p.args });
  }
  return a;
}

const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
});

function answerOfEvents(events: HubEvent[]): Answer {
  const a: Answer = { text: '', thinking: '', refusal: '', calls: [] };
  const calls = new Map<number, Call>();
  for (const e of events) {
    if (e.type === 'start') a.id = e.id;
    else if (e.type === 'text') a.text += e.text;
    else if (e.type === 'thinking') a.thinking += e.text;
    else if (e.type === 'refusal') a.refusal += e.text;
    else if (e.type === 'tool_call') calls.set(e.index, { id: e.id, name: e.name, args: '' });
    else if (e.type === 'tool_args') {
      const c = calls.get(e.index);
      if (!c) throw new Error(`tool_args for unopened call ${e.index}`);
      c.args += e.delta;
    } else if (e.type === 'usage') a.usage = e.usage;
    else if (e.type === 'finish') {
      if (a.stop) throw new Error('finish came twice');
      a.stop = e.stop;
    }
  }
  a.calls = [...calls.values()];
  return a;
}

/** Replays a recorded stream through the decoder as the upstream frames it (each line, then [DONE]). */
function decodeLines(lines: string[], done = true): HubEvent[] {
  const dec = chatCodec.streamDecoder(streamCtx);
  const events: HubEvent[] = [];
  for (const line of lines) events.push(...dec.push({ data: line }));
  if (done) events.push(...dec.push({ data: '[DONE]' }));
  events.push(...dec.end());
  return events;
}

/** Runs hub events through the encoder and returns its SSE bytes. */
function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  const enc = chatCodec.streamEncoder(c);
  return events.map((e) => enc.push(e)).join('') + enc.end();
}

/** The data payloads of SSE text. */
const sseData = (sse: string) =>
  sse
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      expect(f.startsWith('data: ')).toBe(true);
      return f.slice('data: '.length);
    });

describe('chat codec: recorded answers decode to the hub', () => {
  const cases: Array<{
    file: string;
    want: Partial<Answer> & { textStart?: string; thinkingStart?: string };
  }> = [
    {
      file: 'openai/chat/text.json',
      want: {
        id: 'chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU',
        textStart: '**Holiday Name:** Galaxy Day',
        thinking: '',
        calls: [],
        stop: 'end',
        usage: usage(16, 363),
      },
    },
    {
      file: 'deepseek/chat/text.json',
      want: {
        textStart: '## **Holiday Name: Gratitude',
        calls: [],
        stop: 'max_tokens',
        usage: usage(13, 300),
      },
    },
    {
      file: 'deepseek/chat/reasoning.json',
      want: {
        textStart: 'The word "strawberry" contains three',
        thinkingStart: 'We are asked: "How many',
        stop: 'end',
        usage: usage(18, 345, 0, 315),
      },
    },
    {
      file: 'deepseek/chat/reasoning-tool-call.json',
      want: {
        text: '',
        thinkingStart: 'The user is asking for the weather',
        calls: [
          { id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', name: 'weather', args: '{"location": "San Francisco"}' },
        ],
        stop: 'tool_calls',
        usage: usage(339, 92, 320, 48),
      },
    },
    {
      // xAI leaves reasoning out of completion_tokens (1) but counts it in total_tokens (241 = 12 + 1 + 228).
      file: 'xai/chat/text.json',
      want: {
        text: 'Hello',
        thinkingStart: 'First, the user said',
        stop: 'end',
        usage: usage(12, 229, 2, 228),
      },
    },
    {
      file: 'xai/chat/tool-call.json',
      want: {
        text: '',
        calls: [{ id: 'call_93562515', name: 'weather', args: '{"location":"San Francisco"}' }],
        stop: 'tool_calls',
        usage: usage(291, 215, 244, 189),
      },
    },
    {
      file: 'mistral/chat/text.json',
      want: {
        textStart: '**Holiday Name: "World Kindness Day',
        calls: [],
        stop: 'end',
        usage: usage(13, 434),
      },
    },
    {
      // Mistral's tool calls have no `type`; its ids are 9 characters.
      file: 'mistral/chat/tool-call.json',
      want: {
        text: '',
        calls: [{ id: 'gSIMJiOkT', name: 'weather', args: '{"location": "San Francisco"}' }],
        stop: 'tool_calls',
        usage: usage(124, 22),
      },
    },
  ];

  it.each(cases)('$file', ({ file, want }) => {
    const got = answerOfResponse(chatCodec.decodeResponse(fixtureJson(file), ctx));
    const { textStart, thinkingStart, ...exact } = want;
    expect(got).toMatchObject(exact);
    if (textStart) expect(got.text.startsWith(textStart)).toBe(true);
    if (thinkingStart) expect(got.thinking.startsWith(thinkingStart)).toBe(true);
  });

  it('the texts are the recorded ones, whole', () => {
    const body = fixtureJson('deepseek/chat/reasoning.json');
    const got = answerOfResponse(chatCodec.decodeResponse(body, ctx));
    expect(got.text).toBe(body.choices[0].message.content);
    expect(got.thinking).toBe(body.choices[0].message.reasoning_content);
  });
});

describe('chat codec: recorded streams decode to the hub, event by event', () => {
  /** The text, thinking and per-index arguments of a recording, read straight from its deltas. */
  function recorded(file: string) {
    let text = '';
    let thinking = '';
    for (const line of fixtureChunks(file)) {
      const d = JSON.parse(line).choices?.[0]?.delta ?? {};
      text += d.content ?? '';
      thinking += d.reasoning_content ?? '';
    }
    return { text, thinking };
  }

  const cases: Array<{ file: string; id: string; calls: Call[]; stop: HubStop; usage: HubUsage }> = [
    {
      file: 'openai/chat/text.chunks.txt',
      id: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
      calls: [],
      stop: 'end',
      usage: usage(16, 300),
    },
    {
      file: 'openai/chat/text-then-tool-call.chunks.txt',
      id: 'chatcmpl-E6yvi7cuDcHZEHTMxcLDyf3CMKIO2',
      calls: [{ id: 'call_NZa7xqfefoaMI2YYHowVXVlU', name: 'weather', args: '{}' }],
      stop: 'tool_calls',
      usage: usage(58, 12),
    },
    {
      // Azure: the first chunk has an empty id and model, no choices, and prompt_filter_results.
      file: 'openai/chat/azure-content-filter-reasoning.chunks.txt',
      id: 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt',
      calls: [],
      stop: 'end',
      usage: usage(15, 78, 0, 64),
    },
    {
      file: 'deepseek/chat/text.chunks.txt',
      id: 'f6117a0b-129d-46fa-b239-78f01c2c5df9',
      calls: [],
      stop: 'max_tokens',
      usage: usage(13, 400),
    },
    {
      file: 'deepseek/chat/reasoning.chunks.txt',
      id: 'cac7192e-e619-40c6-96b0-ed4276bc03ac',
      calls: [],
      stop: 'end',
      usage: usage(18, 219, 0, 205),
    },
    {
      file: 'deepseek/chat/reasoning-tool-call.chunks.txt',
      id: 'cca85624-4056-401f-b220-d77601d1f70d',
      calls: [
        { id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', args: '{"location": "San Francisco"}' },
      ],
      stop: 'tool_calls',
      usage: usage(339, 83, 320, 39),
    },
    {
      file: 'xai/chat/text.chunks.txt',
      id: '7327b9f5-1c2f-0a15-3fef-c14a71c460d3',
      calls: [],
      stop: 'end',
      usage: usage(12, 291, 11, 290),
    },
    {
      file: 'xai/chat/tool-call.chunks.txt',
      id: 'de9d896d-e946-b3a7-bb14-75ab33326930',
      calls: [{ id: 'call_55117580', name: 'weather', args: '{"location":"San Francisco"}' }],
      stop: 'tool_calls',
      usage: usage(291, 222, 290, 196),
    },
    {
      file: 'mistral/chat/text.chunks.txt',
      id: '5319bd0299614c679a0068a4f2c8ffd0',
      calls: [],
      stop: 'end',
      usage: usage(13, 8),
    },
    {
      // Mistral: the whole call (no index) with finish_reason and usage in one chunk.
      file: 'mistral/chat/tool-call.chunks.txt',
      id: 'b3999b8c93e04e11bcbff7bcab829667',
      calls: [{ id: 'gSIMJiOkT', name: 'weather', args: '{"location": "San Francisco"}' }],
      stop: 'tool_calls',
      usage: usage(124, 22),
    },
  ];

  it.each(cases)('$file', ({ file, id, calls, stop, usage: u }) => {
    const events = decodeLines(fixtureChunks(file));
    expect(events[0]).toMatchObject({ type: 'start', id });
    const got = answerOfEvents(events);
    const want = recorded(file);
    expect(got).toMatchObject({ id, text: want.text, thinking: want.thinking, calls, stop, usage: u });
    expect(got.text.length + got.thinking.length + calls.length).toBeGreaterThan(0);
  });

  it('emits events as chunks arrive, not at the end', () => {
    const dec = chatCodec.streamDecoder(streamCtx);
    const [first, second] = fixtureChunks('mistral/chat/text.chunks.txt');
    expect(dec.push({ data: first })).toEqual([
      {
        type: 'start',
        id: '5319bd0299614c679a0068a4f2c8ffd0',
        model: 'mistral-small-latest',
        created: 1769088720,
      },
    ]);
    expect(dec.push({ data: second })).toEqual([{ type: 'text', text: 'Hello' }]);
  });

  it('the last argument fragment in the finish chunk is kept, before the finish', () => {
    const chunk = (delta: unknown, finish: string | null = null, extra = {}) =>
      JSON.stringify({
        id: 'c1',
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      });
    const events = decodeLines([
      chunk({ role: 'assistant', content: '' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, 'tool_calls', {
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      }),
    ]);
    expect(events.slice(-3)).toEqual([
      { type: 'tool_args', index: 0, delta: '1}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(5, 3) },
    ]);
  });

  it('a new id at a reused index is a new call; fragments without an id continue the call', () => {
    const chunk = (tc: unknown) =>
      JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta: { tool_calls: [tc] } }] });
    const got = answerOfEvents(
      decodeLines([
        chunk({ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"a":' } }),
        chunk({ index: 0, function: { arguments: '1}' } }),
        chunk({ index: 0, id: 'call_b', function: { name: 'g', arguments: '{}' } }),
        // A server that repeats a fresh id on every fragment of one call (no name): still the same call.
        chunk({ index: 0, id: 'call_x', function: { arguments: '' } }),
        JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      ]),
    );
    expect(got.calls).toEqual([
      { id: 'call_a', name: 'f', args: '{"a":1}' },
      { id: 'call_b', name: 'g', args: '{}' },
    ]);
    // finish_reason "stop" after tool calls is still a tool-call stop.
    expect(got.stop).toBe('tool_calls');
  });

  it('an error object inside a 200 stream is an error event, and the rest is ignored', () => {
    const events = decodeLines([
      fixtureChunks('mistral/chat/text.chunks.txt')[0],
      JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', code: null } }),
      fixtureChunks('mistral/chat/text.chunks.txt')[1],
    ]);
    expect(events.map((e) => e.type)).toEqual(['start', 'error']);
    expect(events[1]).toMatchObject({
      error: { kind: 'server', status: 500, message: 'The server had an error' },
    });
  });

  it('a stream cut before finish_reason and [DONE] ends in an error; [DONE] alone ends it cleanly', () => {
    const lines = fixtureChunks('mistral/chat/text.chunks.txt').slice(0, 3);
    expect(decodeLines(lines, false).at(-1)).toMatchObject({ type: 'error', error: { status: 502 } });
    expect(decodeLines(lines, true).at(-1)).toEqual({ type: 'finish', stop: 'end' });
  });
});

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

  it('a relayed stream decodes every recorded chunk that carries usage, an error or a finish reason', () => {
    let skipped = 0;
    for (const file of streams)
      for (const line of fixtureChunks(file)) {
        if (line === '[DONE]') continue;
        const parsed = JSON.parse(line);
        const matters =
          (parsed.usage !== null && typeof parsed.usage === 'object') ||
          parsed.error !== undefined ||
          parsed.choices?.some((c: any) => typeof c.finish_reason === 'string');
        if (matters) expect(mayMatter(line), line).toBe(true);
        else if (!mayMatter(line)) skipped++;
      }
    // Text chunks (finish_reason null, usage null) pass unread.
    expect(skipped).toBeGreaterThan(20);
    const finish = (reason: string) => `{"index":1,"delta":{},"finish_reason"${reason}}`;
    expect(mayMatter(chunk(`${delta('"a"')},${finish(' : "stop"')}`))).toBe(true);
    expect(mayMatter(chunk(`${delta('"a"')},${finish(':null')}`))).toBe(false);
    expect(mayMatter(chunk(delta('"a"'), ',"usage":null'))).toBe(false);
    expect(mayMatter(chunk(delta('"a"'), ',"usage": {"total_tokens":2}'))).toBe(true);
    expect(mayMatter('{"usageMetadata":{"totalTokenCount":2}}')).toBe(true);
    expect(mayMatter('{"type":"error","error":{"message":"x"}}')).toBe(true);
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

describe('chat codec: encoder output through the official openai client', () => {
  let server: Server;
  let client: OpenAI;
  let next: { status: number; type: string; body: string } = {
    status: 200,
    type: 'application/json',
    body: '{}',
  };
  const seen: any[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => {
        raw += d;
      });
      req.on('end', () => {
        seen.push(JSON.parse(raw));
        res.writeHead(next.status, { 'content-type': next.type });
        res.end(next.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const params = { model: 'gateway-model', messages: [{ role: 'user' as const, content: 'hi' }] };

  const serveStream = (events: HubEvent[]) => {
    next = { status: 200, type: 'text/event-stream', body: encodeEvents(events) };
  };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return client.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .finalChatCompletion();
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
    next = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(chatCodec.encodeResponse(hub, ctx)),
    };
    const got = await client.chat.completions.create(params);
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
    const err = await client.chat.completions
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
    next = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await client.chat.completions.create(params).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe('insufficient_quota');
    expect(err.message).toContain('You exceeded your current quota (request id: req-9)');
  });
});

describe('chat codec: request decoding', () => {
  const decode = (body: Record<string, unknown>) => chatCodec.decodeRequest(body, ctx);

  it('reads every field a chat client sends', () => {
    const img = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]).toString('base64');
    const req = decode({
      model: 'claude-sonnet-4-5',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'developer',
          content: [{ type: 'text', text: 'Use tools.', cache_control: { type: 'ephemeral' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/jpg;base64,${img}`, detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'I should call both.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '12:00' }] },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'You are welcome.', refusal: null },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
        },
        { type: 'function', name: 'time', parameters: { type: 'object', properties: {} } },
        { type: 'custom', custom: { name: 'apply_patch', description: 'Patch files' } },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
      max_tokens: 100,
      max_completion_tokens: 200,
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      n: 1,
      seed: 7,
      frequency_penalty: 0.1,
      presence_penalty: -0.1,
      reasoning_effort: 'low',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
      },
      user: 'u-1',
    });
    expect(req).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use tools.', cache: { type: 'ephemeral' } },
      ],
      toolChoice: { type: 'tool', name: 'weather' },
      parallelToolCalls: false,
      maxTokens: 200,
      temperature: 0.5,
      topP: 0.9,
      stop: ['END'],
      n: 1,
      seed: 7,
      frequencyPenalty: 0.1,
      presencePenalty: -0.1,
      thinking: { enabled: true, effort: 'low' },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      user: 'u-1',
    });
    expect(req.tools).toEqual([
      { name: 'weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
      { name: 'time', parameters: { type: 'object', properties: {} } },
      {
        name: 'apply_patch',
        description: 'Patch files',
        custom: true,
        parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
      },
    ]);
    expect(req.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', data: img, mediaType: 'image/png', detail: 'high' },
          { type: 'image', url: 'https://example.com/a.png' },
          { type: 'file', data: 'AAAA', mediaType: 'audio/mpeg' },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'I should call both.' },
          { type: 'tool_call', id: 'call_1', name: 'weather', args: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'call_2', name: 'time', args: '{}' },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_1',
            name: 'weather',
            content: [{ type: 'text', text: 'sunny' }],
          },
          { type: 'tool_result', callId: 'call_2', name: 'time', content: [{ type: 'text', text: '12:00' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'You are welcome.' }] },
    ]);
  });

  it('maps the legacy functions, function_call and function role', () => {
    const req = decode({
      model: 'm',
      functions: [{ name: 'lookup', parameters: { type: 'object' } }],
      function_call: { name: 'lookup' },
      messages: [
        { role: 'user', content: 'find x' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(req.tools).toEqual([{ name: 'lookup', parameters: { type: 'object' } }]);
    expect(req.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    const call = req.messages[1].parts[0];
    expect(call).toMatchObject({ type: 'tool_call', name: 'lookup', args: '{"q":"x"}' });
    expect(req.messages[2].parts[0]).toMatchObject({
      type: 'tool_result',
      callId: (call as { id: string }).id,
      name: 'lookup',
      content: [{ type: 'text', text: 'found' }],
    });
  });

  it('keeps a packed Gemini id whole and also exposes its signature', () => {
    const id = packCallId('fc_1', 'sig-bytes');
    const req = decode({
      model: 'm',
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: id, content: 'ok' },
      ],
    });
    expect(req.messages[0].parts[0]).toEqual({
      type: 'tool_call',
      id,
      name: 'f',
      args: '{}',
      signature: 'sig-bytes',
      signatureFormat: 'gemini',
    });
    expect(req.messages[1].parts[0]).toMatchObject({ callId: id, name: 'f' });
  });

  it.each([
    ['reasoning_effort none', { reasoning_effort: 'none' }, { enabled: false }],
    ['reasoning_effort xhigh', { reasoning_effort: 'xhigh' }, { enabled: true, effort: 'high' }],
  ])('%s', (_name, extra, thinking) => {
    expect(decode({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...extra }).thinking).toEqual(
      thinking,
    );
  });

  const user = [{ role: 'user', content: 'hi' }];
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no model', { messages: user }, /model/],
    ['model not a string', { model: 5, messages: user }, /model/],
    ['no messages', { model: 'm' }, /messages/],
    ['empty messages', { model: 'm', messages: [] }, /messages/],
    ['a message that is not an object', { model: 'm', messages: ['hi'] }, /messages\[0\]/],
    ['an unknown role', { model: 'm', messages: [{ role: 'bot', content: 'x' }] }, /messages\[0\]\.role/],
    ['user content missing', { model: 'm', messages: [{ role: 'user' }] }, /messages\[0\]\.content/],
    [
      'user content a number',
      { model: 'm', messages: [{ role: 'user', content: 3 }] },
      /messages\[0\]\.content/,
    ],
    [
      'an unknown content part type',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] },
      /messages\[0\]\.content\[0\]\.type/,
    ],
    [
      'a text part without text',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 4 }] }] },
      /content\[0\]\.text/,
    ],
    [
      'an image in a system message',
      {
        model: 'm',
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] },
        ],
      },
      /only 'text'/,
    ],
    [
      'an image URL that is not http or data',
      {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] },
        ],
      },
      /http/,
    ],
    [
      'audio of an unknown format',
      {
        model: 'm',
        messages: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA', format: 'ogg' } }] },
        ],
      },
      /format/,
    ],
    [
      'a tool result for an unknown call id',
      { model: 'm', messages: [...user, { role: 'tool', tool_call_id: 'call_nope', content: 'x' }] },
      /call_nope/,
    ],
    [
      'a tool message without tool_call_id',
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      /tool_call_id/,
    ],
    [
      'a function message no function_call asked for',
      { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      /function_call/,
    ],
    [
      'an empty assistant message',
      { model: 'm', messages: [{ role: 'assistant', content: null }] },
      /assistant/,
    ],
    [
      'a tool call without id',
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f' } }] }],
      },
      /tool_calls\[0\]\.id/,
    ],
    [
      'a tool call of an unknown type',
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ id: 'a', type: 'web', function: { name: 'f' } }] }],
      },
      /tool_calls\[0\]\.type/,
    ],
    ['tools not an array', { model: 'm', messages: user, tools: {} }, /tools/],
    [
      'a tool without a name',
      { model: 'm', messages: user, tools: [{ type: 'function', function: {} }] },
      /tools\[0\]/,
    ],
    [
      'a tool of an unknown type',
      { model: 'm', messages: user, tools: [{ type: 'web_search' }] },
      /tools\[0\]\.type/,
    ],
    [
      'tool parameters that are not an object',
      { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] },
      /parameters/,
    ],
    ['an unknown tool_choice', { model: 'm', messages: user, tool_choice: 'any' }, /tool_choice/],
    ['temperature above 2', { model: 'm', messages: user, temperature: 3 }, /temperature/],
    ['top_p as a string', { model: 'm', messages: user, top_p: '1' }, /top_p/],
    ['max_tokens not an integer', { model: 'm', messages: user, max_tokens: 1.5 }, /max_tokens/],
    [
      'max_completion_tokens zero',
      { model: 'm', messages: user, max_completion_tokens: 0 },
      /max_completion_tokens/,
    ],
    ['n zero', { model: 'm', messages: user, n: 0 }, /'n'/],
    ['stop with a number', { model: 'm', messages: user, stop: ['a', 1] }, /stop/],
    ['stream not a boolean', { model: 'm', messages: user, stream: 'yes' }, /stream/],
    ['stream_options not an object', { model: 'm', messages: user, stream_options: true }, /stream_options/],
    [
      'an unknown reasoning_effort',
      { model: 'm', messages: user, reasoning_effort: 'huge' },
      /reasoning_effort/,
    ],
    [
      'an unknown response_format',
      { model: 'm', messages: user, response_format: { type: 'xml' } },
      /response_format/,
    ],
    [
      'a json_schema without a name',
      { model: 'm', messages: user, response_format: { type: 'json_schema', json_schema: {} } },
      /json_schema\.name/,
    ],
    [
      'a file part without data or id',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: {} }] }] },
      /file/,
    ],
  ];

  it.each(bad)('400 on %s', (_name, body, message) => {
    let err: unknown;
    try {
      decode(body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RelayError);
    expect((err as RelayError).status).toBe(400);
    expect((err as RelayError).message).toMatch(message);
  });
});

describe('chat codec: request encoding for an OpenAI-compatible upstream', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  const packed = packCallId('fc_2', 'gem');
  // A Claude-Code-shaped conversation, as the Anthropic decoder would put it in the hub.
  const hub: HubRequest = {
    model: 'deepseek-chat',
    stream: true,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache: { type: 'ephemeral' } },
      { type: 'text', text: 'Be careful.' },
    ],
    messages: [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look at this', cache: { type: 'ephemeral' } },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'secret thoughts', signature: 'sig', signatureFormat: 'anthropic' },
          { type: 'thinking', text: '', redacted: 'opaque-bytes' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_call', id: 'toolu_1', name: 'read', args: '{"path":"a"}' },
          { type: 'tool_call', id: packed, name: 'apply_patch', args: '{"input":"*** Begin"}', custom: true },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            name: 'read',
            content: [
              { type: 'text', text: 'file a' },
              { type: 'image', url: 'https://example.com/shot.png' },
            ],
            isError: false,
          },
          { type: 'tool_result', callId: packed, content: [] },
          { type: 'text', text: 'Continue' },
        ],
      },
    ],
    tools: [
      {
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'apply_patch', parameters: {}, custom: true, cache: { type: 'ephemeral' } },
    ],
    toolChoice: { type: 'tool', name: 'read' },
    parallelToolCalls: true,
    maxTokens: 4096,
    temperature: 1,
    topK: 40,
    stop: ['</done>'],
    thinking: { enabled: true, budgetTokens: 5000 },
    responseFormat: { type: 'json_object' },
    user: 'user-7',
  };

  const body = chatCodec.encodeRequest(hub, streamCtx) as any;

  it('puts messages in OpenAI order: system, user, assistant with tool_calls, tool results, then user', () => {
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.\nBe careful.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          {
            id: packed,
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"*** Begin"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'file a' },
      { role: 'tool', tool_call_id: packed, content: '' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://example.com/shot.png' } },
          { type: 'text', text: 'Continue' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toMatch(/secret thoughts|reasoning_content|cache_control|"sig"/);
  });

  it('sets the parameters OpenAI-compatible servers accept', () => {
    const { messages: _m, ...rest } = body;
    expect(rest).toEqual({
      model: 'deepseek-chat',
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Read a file', parameters: hub.tools[0].parameters },
        },
        {
          type: 'function',
          function: {
            name: 'apply_patch',
            parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'read' } },
      parallel_tool_calls: true,
      max_tokens: 4096,
      temperature: 1,
      stop: ['</done>'],
      reasoning_effort: 'medium',
      response_format: { type: 'json_object' },
      user: 'user-7',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ enabled: true, budgetTokens: 1024 }, 'low'],
    [{ enabled: true, budgetTokens: 8192 }, 'medium'],
    [{ enabled: true, budgetTokens: 8193 }, 'high'],
    [{ enabled: true, effort: 'minimal' as const }, 'minimal'],
    [{ enabled: true }, undefined],
    [{ enabled: false, budgetTokens: 9000 }, undefined],
  ])('thinking %j -> reasoning_effort %s', (thinking, effort) => {
    const b = chatCodec.encodeRequest({ ...hub, thinking }, ctx) as any;
    expect(b.reasoning_effort).toBe(effort);
  });

  it('a plain request has no stream fields, no tool fields without tools, text-only content as a string', () => {
    const b = chatCodec.encodeRequest(
      {
        model: 'm',
        stream: false,
        system: [],
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
        tools: [],
        toolChoice: { type: 'auto' },
        parallelToolCalls: false,
        responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      },
      ctx,
    );
    expect(b).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'a\nb' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'o', schema: { type: 'object' }, strict: true },
      },
    });
  });

  it('files: audio as input_audio, a PDF as a file part, a file URL refused; a thinking-only turn left out', () => {
    const base = { model: 'm', stream: false, system: [], tools: [] };
    const b = chatCodec.encodeRequest(
      {
        ...base,
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'file', data: 'AAAA', mediaType: 'audio/mpeg' },
              { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
              { type: 'opaque', format: 'openai', value: { type: 'file', file: { file_id: 'file-1' } } },
              { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
            ],
          },
          {
            role: 'assistant',
            parts: [{ type: 'thinking', text: 'hmm', signature: 's', signatureFormat: 'anthropic' }],
          },
          { role: 'user', parts: [{ type: 'text', text: 'again' }] },
        ],
      },
      ctx,
    ) as any;
    expect(b.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'mp3' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          { type: 'file', file: { file_id: 'file-1' } },
        ],
      },
      { role: 'user', content: 'again' },
    ]);
    const byUrl = () =>
      chatCodec.encodeRequest(
        {
          ...base,
          messages: [
            { role: 'user', parts: [{ type: 'file', url: 'https://x/a.pdf', mediaType: 'application/pdf' }] },
          ],
        },
        ctx,
      );
    expect(byUrl).toThrow(RelayError);
  });

  it('a chat request survives decode then encode', () => {
    const original = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'r' },
        { role: 'assistant', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      max_tokens: 50,
      stream: true,
    };
    const again = chatCodec.encodeRequest(chatCodec.decodeRequest(original, ctx), ctx);
    expect(again).toEqual({ ...original, stream_options: { include_usage: true } });
  });
});

describe('chat codec: errors', () => {
  it('decodes the recorded OpenAI error bodies', () => {
    expect(chatCodec.decodeError(400, fixtureText('openai/chat/error-unsupported-parameter.json'))).toEqual({
      status: 400,
      kind: 'invalid_request',
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      code: 'unsupported_parameter',
      param: 'max_tokens',
    });
    expect(
      chatCodec.decodeError(429, fixtureText('openai/responses/error-insufficient-quota.json')),
    ).toMatchObject({
      status: 429,
      kind: 'quota',
    });
  });

  it.each([
    [
      401,
      '{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}',
      'authentication',
    ],
    [
      404,
      '{"error":{"message":"no model","type":"invalid_request_error","code":"model_not_found"}}',
      'not_found',
    ],
    [429, '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}', 'rate_limit'],
    [503, '{"error":{"message":"busy","type":"server_error"}}', 'overloaded'],
    [500, '<html>oops</html>', 'server'],
    [502, 'Bad Gateway', 'server'],
    [400, '[{"error":{"code":400,"message":"bad arg","status":"INVALID_ARGUMENT"}}]', 'invalid_request'],
    [422, '{"detail":"field missing"}', 'invalid_request'],
  ])('status %i %s -> %s', (status, raw, kind) => {
    const e = chatCodec.decodeError(status, raw);
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message.length).toBeGreaterThan(0);
    expect(e.message).not.toContain('<html>');
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error', null],
    ['authentication', 401, 'authentication_error', 'invalid_api_key'],
    ['permission', 403, 'permission_error', null],
    ['not_found', 404, 'not_found_error', null],
    ['rate_limit', 429, 'rate_limit_error', 'rate_limit_exceeded'],
    ['quota', 429, 'insufficient_quota', 'insufficient_quota'],
    ['server', 500, 'server_error', null],
    ['overloaded', 503, 'server_error', 'overloaded'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type, code) => {
    const out = chatCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out).toEqual({
      status,
      body: { error: { message: 'm (request id: req-1)', type, param: null, code } },
    });
    expect(chatCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });

  it('an error object in a 200 answer is thrown, not read as an empty answer', () => {
    expect(() => chatCodec.decodeResponse({ error: { message: 'nope', type: 'server_error' } }, ctx)).toThrow(
      /nope/,
    );
  });
});
