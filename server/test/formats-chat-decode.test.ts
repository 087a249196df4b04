import { describe, expect, it } from 'vitest';
import { chatCodec } from '../src/relay/formats/chat/index.ts';
import type { HubStop, HubUsage } from '../src/relay/formats/hub.ts';
import {
  type Answer,
  answerOfEvents,
  answerOfResponse,
  type Call,
  ctx,
  decodeLines,
  streamCtx,
  usage,
} from './support/chat-codec.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';

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
