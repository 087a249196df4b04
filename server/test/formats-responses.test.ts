import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayError } from '../src/relay/errors.ts';
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
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { fixtureChunks, fixtureJson, fixtureText } from './support/fixtures.ts';

const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
const streamCtx: CodecContext = { ...ctx, stream: true };
const DIR = 'openai/responses';

const usage = (input: number, output: number, cacheRead = 0, reasoning = 0): HubUsage => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning,
});

interface Call {
  id: string;
  name: string;
  args: string;
  custom?: boolean;
}

/** What a client would see of an answer: texts, thinking, signatures, calls, opaque items, stop, usage. */
interface Answer {
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

const emptyAnswer = (): Answer => ({
  text: '',
  thinking: '',
  signatures: [],
  refusal: '',
  calls: [],
  opaque: [],
});

function answerOfParts(parts: HubPart[]): Answer {
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

const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
});

function answerOfEvents(events: HubEvent[]): Answer {
  const a = emptyAnswer();
  const calls = new Map<number, Call>();
  for (const e of events) {
    if (e.type === 'start') a.id = e.id;
    else if (e.type === 'text') a.text += e.text;
    else if (e.type === 'thinking') a.thinking += e.text;
    else if (e.type === 'thinking_signature') a.signatures.push(e.signature);
    else if (e.type === 'refusal') a.refusal += e.text;
    else if (e.type === 'opaque') a.opaque.push((e.value as any).type);
    else if (e.type === 'tool_call')
      calls.set(e.index, { id: e.id, name: e.name, args: '', ...(e.custom ? { custom: true } : {}) });
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

/** Replays a recorded stream through the decoder, one event at a time. */
function decodeLines(lines: string[]): HubEvent[] {
  const dec = responsesCodec.streamDecoder(streamCtx);
  const events: HubEvent[] = [];
  for (const line of lines) events.push(...dec.push({ event: JSON.parse(line).type, data: line }));
  events.push(...dec.end());
  return events;
}

/** Runs hub events through the encoder and returns its SSE bytes. */
function encodeEvents(events: HubEvent[]): string {
  const enc = responsesCodec.streamEncoder(streamCtx);
  return events.map((e) => enc.push(e)).join('') + enc.end();
}

/** The events of SSE text, each checked to have an event name equal to its payload's type. */
function sseEvents(sse: string): any[] {
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
function recordedFinal(file: string) {
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

describe('responses codec: recorded answers decode to the hub', () => {
  it('text', () => {
    const got = responsesCodec.decodeResponse(fixtureJson(`${DIR}/text.json`), ctx);
    expect(answerOfResponse(got)).toEqual({
      ...emptyAnswer(),
      id: 'resp_0ea91f8f0111eb2a016a4df98dd20081a0902ca3f462d5a511',
      text: 'Ada,Grace',
      stop: 'end',
      usage: usage(68, 4),
    });
    expect(got.model).toBe('gpt-4.1-nano-2025-04-14');
    expect(got.created).toBe(1783495055);
  });

  it('reasoning summary with encrypted content: thinking with its signature and item id', () => {
    const body = fixtureJson(`${DIR}/reasoning-summary.json`);
    const got = responsesCodec.decodeResponse(body, ctx);
    expect(got.parts[0]).toEqual({
      type: 'thinking',
      text: body.output[0].summary[0].text,
      signature: body.output[0].encrypted_content,
      signatureFormat: 'responses',
      itemId: 'rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e',
    });
    expect(answerOfResponse(got)).toMatchObject({
      text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570',
      stop: 'end',
      usage: usage(865, 163, 0, 128),
    });
  });

  it('two messages (commentary and final answer) and cached tokens', () => {
    const body = fixtureJson(`${DIR}/phase-cached-tokens.json`);
    const got = answerOfResponse(responsesCodec.decodeResponse(body, ctx));
    expect(got.text).toBe(body.output[0].content[0].text + body.output[1].content[0].text);
    expect(got.usage).toEqual(usage(7243, 423, 3072, 58));
  });

  it('image generation: the image call travels as an opaque Responses item; empty reasoning is dropped', () => {
    const got = responsesCodec.decodeResponse(fixtureJson(`${DIR}/image-generation.json`), ctx);
    expect(got.parts.map((p) => p.type)).toEqual(['opaque']);
    expect(got.parts[0]).toMatchObject({
      format: 'responses',
      value: { type: 'image_generation_call', id: 'ig_0a33d15155cb126d0068c96c59bc14819599154c9988b82996' },
    });
    expect(got.usage).toEqual(usage(3151, 1970, 0, 1920));
  });

  it('function and custom tool calls, refusals, incomplete reasons', () => {
    const body = {
      id: 'resp_1',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      model: 'gpt-5',
      created_at: 5,
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          content: [{ type: 'refusal', refusal: 'No.' }],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
        {
          type: 'custom_tool_call',
          id: 'ctc_1',
          call_id: 'call_2',
          name: 'apply_patch',
          input: '*** Begin "x"',
        },
      ],
    };
    const got = responsesCodec.decodeResponse(body, ctx);
    expect(answerOfResponse(got)).toMatchObject({
      refusal: 'No.',
      calls: [
        { id: 'call_1', name: 'f', args: '{"a":1}' },
        { id: 'call_2', name: 'apply_patch', args: '{"input":"*** Begin \\"x\\""}', custom: true },
      ],
      stop: 'max_tokens',
      usage: usage(0, 0),
    });
    expect(
      responsesCodec.decodeResponse({ ...body, incomplete_details: { reason: 'content_filter' } }, ctx).stop,
    ).toBe('content_filter');
    expect(responsesCodec.decodeResponse({ ...body, status: 'completed' }, ctx).stop).toBe('tool_calls');
  });

  it('a failed response is thrown as its error, odd bodies do not crash', () => {
    expect(() =>
      responsesCodec.decodeResponse(
        { id: 'r', status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [] },
        ctx,
      ),
    ).toThrow(/boom/);
    expect(() => responsesCodec.decodeResponse('nope', ctx)).toThrow(RelayError);
    const odd = responsesCodec.decodeResponse({ output: [null, 3, { type: 'message', content: 'x' }] }, ctx);
    expect(odd.parts).toEqual([]);
    expect(odd.model).toBe('gateway-model');
  });
});

describe('responses codec: recorded streams decode to the hub, event by event', () => {
  const cases: Array<{ file: string; stop: HubStop; usage: HubUsage; opaque?: string[] }> = [
    { file: 'text.chunks.txt', stop: 'end', usage: usage(44, 4) },
    { file: 'reasoning-summary.chunks.txt', stop: 'end', usage: usage(42, 2655, 0, 2539) },
    { file: 'reasoning-function-call.chunks.txt', stop: 'tool_calls', usage: usage(84, 39, 0, 15) },
    { file: 'phase-cached-tokens.chunks.txt', stop: 'end', usage: usage(7112, 463, 3072, 64) },
    {
      file: 'image-generation.chunks.txt',
      stop: 'end',
      usage: usage(2941, 1249, 1920, 1024),
      opaque: ['image_generation_call'],
    },
  ];

  it.each(cases)('$file', ({ file, stop, usage: u, opaque }) => {
    const events = decodeLines(fixtureChunks(`${DIR}/${file}`));
    const { answer, response } = recordedFinal(`${DIR}/${file}`);
    expect(events[0]).toMatchObject({ type: 'start', id: response.id, model: response.model });
    const got = answerOfEvents(events);
    expect(got).toEqual({ ...answer, id: response.id, opaque: opaque ?? [], stop, usage: u });
    expect(got.text.length + got.thinking.length + got.calls.length + got.opaque.length).toBeGreaterThan(0);
  });

  it('the signature is the reasoning item’s final encrypted_content, not the one it was added with', () => {
    const lines = fixtureChunks(`${DIR}/reasoning-function-call.chunks.txt`);
    const added = JSON.parse(lines[2]).item.encrypted_content;
    const done = JSON.parse(lines[3]).item.encrypted_content;
    expect(added).not.toBe(done);
    const sig = decodeLines(lines).find((e) => e.type === 'thinking_signature');
    expect(sig).toEqual({
      type: 'thinking_signature',
      signature: done,
      format: 'responses',
      itemId: JSON.parse(lines[3]).item.id,
    });
  });

  it('emits events as they arrive, not at the end', () => {
    const dec = responsesCodec.streamDecoder(streamCtx);
    const lines = fixtureChunks(`${DIR}/text.chunks.txt`);
    expect(dec.push({ data: lines[0] })).toEqual([
      {
        type: 'start',
        id: 'resp_051ebd7ab60063870069d4fe8ac1348194bf06d0a4646af05f',
        model: 'gpt-4.1-nano-2025-04-14',
        created: 1775566475,
      },
    ]);
    expect(dec.push({ data: lines[1] })).toEqual([]);
    expect(dec.push({ data: lines[2] })).toEqual([]);
    expect(dec.push({ data: lines[3] })).toEqual([]);
    expect(dec.push({ data: lines[4] })).toEqual([{ type: 'text', text: 'Dummy' }]);
  });

  it('the recorded mid-stream error is one quota error event, and the rest is ignored', () => {
    const events = decodeLines(fixtureChunks(`${DIR}/error-mid-stream.chunks.txt`));
    expect(events.map((e) => e.type)).toEqual(['start', 'error']);
    expect(events[1]).toMatchObject({
      error: {
        kind: 'quota',
        status: 429,
        code: 'insufficient_quota',
        message: expect.stringContaining('quota'),
      },
    });
  });

  it('response.failed alone is an error; a context overflow is the request’s fault', () => {
    const events = decodeLines([
      JSON.stringify({ type: 'response.created', response: { id: 'resp_x', model: 'm' } }),
      JSON.stringify({
        type: 'response.failed',
        response: {
          id: 'resp_x',
          status: 'failed',
          error: { code: 'context_length_exceeded', message: 'too long' },
        },
      }),
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      error: { status: 400, kind: 'invalid_request', message: 'too long' },
    });
  });

  it('a stream cut before response.completed ends in an error', () => {
    const lines = fixtureChunks(`${DIR}/text.chunks.txt`).slice(0, 6);
    expect(decodeLines(lines).at(-1)).toMatchObject({ type: 'error', error: { status: 502 } });
  });

  const ev = (type: string, o: Record<string, unknown> = {}) => JSON.stringify({ type, ...o });

  it('custom tool input streams as the hub’s {"input": ...} arguments; parallel calls by item', () => {
    const events = decodeLines([
      ev('response.created', { response: { id: 'resp_c', model: 'gpt-5-codex' } }),
      ev('response.output_item.added', {
        output_index: 0,
        item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '' },
      }),
      ev('response.output_item.added', {
        output_index: 1,
        item: { id: 'fc_2', type: 'function_call', call_id: 'call_f', name: 'f', arguments: '' },
      }),
      ev('response.custom_tool_call_input.delta', {
        item_id: 'ctc_1',
        output_index: 0,
        delta: '*** Begin\n"q',
      }),
      ev('response.function_call_arguments.delta', { item_id: 'fc_2', output_index: 1, delta: '{"a":' }),
      ev('response.custom_tool_call_input.delta', { item_id: 'ctc_1', output_index: 0, delta: '"\\ end' }),
      ev('response.function_call_arguments.delta', { item_id: 'fc_2', output_index: 1, delta: '2}' }),
      ev('response.custom_tool_call_input.done', { item_id: 'ctc_1', output_index: 0, input: 'ignored' }),
      ev('response.output_item.done', {
        output_index: 0,
        item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: 'x' },
      }),
      ev('response.function_call_arguments.done', { item_id: 'fc_2', output_index: 1, arguments: '{"a":2}' }),
      ev('response.completed', {
        response: { id: 'resp_c', status: 'completed', usage: { input_tokens: 3 } },
      }),
    ]);
    const got = answerOfEvents(events);
    expect(got.calls).toEqual([
      {
        id: 'call_p',
        name: 'apply_patch',
        args: JSON.stringify({ input: '*** Begin\n"q"\\ end' }),
        custom: true,
      },
      { id: 'call_f', name: 'f', args: '{"a":2}' },
    ]);
    expect(JSON.parse(got.calls[0].args).input).toBe('*** Begin\n"q"\\ end');
    expect(got.stop).toBe('tool_calls');
  });

  it('servers that send only .done events (no deltas) are read from those, once', () => {
    const events = decodeLines([
      ev('response.created', { response: { id: 'resp_d', model: 'm' } }),
      ev('response.output_item.added', {
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [] },
      }),
      ev('response.output_item.done', {
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'thought' }] },
      }),
      ev('response.output_item.added', {
        output_index: 1,
        item: { id: 'msg_1', type: 'message', content: [] },
      }),
      ev('response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Hi' }),
      ev('response.output_item.done', {
        output_index: 1,
        item: { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'Hi' }] },
      }),
      ev('response.output_item.done', {
        output_index: 2,
        item: { id: 'fc_9', type: 'function_call', call_id: 'call_9', name: 'g', arguments: '{}' },
      }),
      ev('response.completed', { response: { status: 'completed' } }),
    ]);
    expect(answerOfEvents(events)).toMatchObject({
      thinking: 'thought',
      text: 'Hi',
      calls: [{ id: 'call_9', name: 'g', args: '{}' }],
      stop: 'tool_calls',
    });
  });

  it('several summary parts are paragraphs of one thinking text; refusals stream as refusals', () => {
    const events = decodeLines([
      ev('response.created', { response: { id: 'resp_r', model: 'm' } }),
      ev('response.output_item.added', {
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [] },
      }),
      ev('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 0 }),
      ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, delta: 'one' }),
      ev('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 1 }),
      ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, delta: 'two' }),
      ev('response.output_item.done', {
        output_index: 0,
        item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'enc' },
      }),
      ev('response.output_item.added', {
        output_index: 1,
        item: { id: 'msg_1', type: 'message', content: [] },
      }),
      ev('response.refusal.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'I can’t' }),
      ev('response.refusal.done', {
        item_id: 'msg_1',
        output_index: 1,
        content_index: 0,
        refusal: 'I can’t',
      }),
      ev('response.incomplete', {
        response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
      }),
    ]);
    expect(answerOfEvents(events)).toMatchObject({
      thinking: 'one\n\ntwo',
      signatures: ['enc'],
      refusal: 'I can’t',
      stop: 'content_filter',
    });
  });

  it('garbage lines are skipped', () => {
    const dec = responsesCodec.streamDecoder(streamCtx);
    for (const data of ['', '[DONE]', 'not json', '42', '{"type":"response.output_text.delta"}'])
      expect(() => dec.push({ data })).not.toThrow();
  });
});

describe('responses codec: request decoding (Codex CLI, Agents SDK)', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  const packed = packCallId('call_g', 'gem-sig');
  const applyPatch = {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files.',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
  };
  // The shape of a Codex request: stateless, whole history, encrypted reasoning.
  const codex = {
    model: 'gpt-5-codex',
    instructions: 'You are Codex.',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: read-only.' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Fix the bug' },
          { type: 'input_image', image_url: `data:image/jpg;base64,${png}`, detail: 'high' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Looking at files' }],
        content: null,
        encrypted_content: 'gAAAA-enc',
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'shell',
        arguments: '{"command":["ls"]}',
      },
      { type: 'function_call', call_id: packed, name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'a.ts\nb.ts' },
      {
        type: 'function_call_output',
        call_id: packed,
        output: [
          { type: 'input_text', text: 'see image' },
          { type: 'input_image', image_url: 'https://example.com/x.png' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'r.pdf' },
        ],
      },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Done!' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Fixed.', annotations: [] },
          { type: 'refusal', refusal: 'Not the tests.' },
        ],
      },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
      { role: 'user', content: 'Thanks' },
    ],
    tools: [
      {
        type: 'function',
        name: 'shell',
        description: 'Runs a shell command',
        strict: false,
        parameters: { type: 'object', properties: { command: { type: 'array' } } },
      },
      applyPatch,
      { type: 'web_search', search_context_size: 'low' },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'high', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'conv-1',
    text: {
      verbosity: 'low',
      format: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
    },
    max_output_tokens: 5000,
    safety_identifier: 'user-1',
    metadata: { a: 'b' },
  };

  const hub = responsesCodec.decodeRequest(codex, ctx);

  it('system: instructions first, then developer messages', () => {
    expect(hub.system).toEqual([
      { type: 'text', text: 'You are Codex.' },
      { type: 'text', text: 'Sandbox: read-only.' },
    ]);
  });

  it('turns: user, assistant (reasoning + calls), results (images kept, files after), assistant, user', () => {
    expect(hub.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Fix the bug' },
          { type: 'image', data: png, mediaType: 'image/png', detail: 'high' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'thinking',
            text: 'Looking at files',
            signature: 'gAAAA-enc',
            signatureFormat: 'responses',
            itemId: 'rs_1',
          },
          { type: 'tool_call', id: 'call_1', name: 'shell', args: '{"command":["ls"]}' },
          {
            type: 'tool_call',
            id: packed,
            name: 'read',
            args: '{}',
            signature: 'gem-sig',
            signatureFormat: 'gemini',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_1',
            name: 'shell',
            content: [{ type: 'text', text: 'a.ts\nb.ts' }],
          },
          {
            type: 'tool_result',
            callId: packed,
            name: 'read',
            content: [
              { type: 'text', text: 'see image' },
              { type: 'image', url: 'https://example.com/x.png' },
            ],
          },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'r.pdf' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call_p',
            name: 'apply_patch',
            args: '{"input":"*** Begin Patch"}',
            custom: true,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'call_p',
            name: 'apply_patch',
            content: [{ type: 'text', text: 'Done!' }],
            custom: true,
          },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Fixed.' },
          { type: 'refusal', text: 'Not the tests.' },
          { type: 'opaque', format: 'responses', value: codex.input[10] },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('tools: flat functions, custom apply_patch with its grammar in the description, hosted tools as server tools', () => {
    expect(hub.tools).toEqual([
      {
        name: 'shell',
        description: 'Runs a shell command',
        parameters: { type: 'object', properties: { command: { type: 'array' } } },
        strict: false,
      },
      {
        name: 'apply_patch',
        description:
          'Use the `apply_patch` tool to edit files.\n\nThe input must match this lark grammar:\nstart: begin_patch hunk+ end_patch',
        parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
        custom: true,
      },
    ]);
    expect(hub.serverTools).toEqual([
      { type: 'opaque', format: 'responses', value: { type: 'web_search', search_context_size: 'low' } },
    ]);
  });

  it('options', () => {
    const { system: _s, messages: _m, tools: _t, serverTools: _st, ...rest } = hub;
    expect(rest).toEqual({
      model: 'gpt-5-codex',
      stream: true,
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      maxTokens: 5000,
      thinking: { enabled: true, effort: 'high', includeThoughts: true },
      responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      user: 'user-1',
    });
  });

  const decode = (body: Record<string, unknown>) => responsesCodec.decodeRequest(body, ctx);

  it.each([
    [
      'a string input',
      { model: 'm', input: 'hi' },
      [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    ],
    [
      'easy messages without type, assistant content as a string',
      {
        model: 'm',
        input: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
      },
      [
        { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
      ],
    ],
    [
      'files by id and image by file_id stay Responses-only',
      {
        model: 'm',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', file_id: 'file-1' },
              { type: 'input_image', file_id: 'file-2' },
              { type: 'input_file', file_url: 'https://x/a.pdf' },
            ],
          },
        ],
      },
      [
        {
          role: 'user',
          parts: [
            { type: 'opaque', format: 'responses', value: { type: 'input_file', file_id: 'file-1' } },
            { type: 'opaque', format: 'responses', value: { type: 'input_image', file_id: 'file-2' } },
            { type: 'file', url: 'https://x/a.pdf', mediaType: 'application/pdf' },
          ],
        },
      ],
    ],
  ])('%s', (_name, body, messages) => {
    expect(decode(body).messages).toEqual(messages);
  });

  it.each([
    [{ effort: 'none' }, { enabled: false }],
    [{ effort: 'minimal' }, { enabled: true, effort: 'minimal' }],
    [
      { effort: 'xhigh', summary: 'detailed' },
      { enabled: true, effort: 'high', includeThoughts: true },
    ],
    [{ summary: 'concise' }, { enabled: true, includeThoughts: true }],
    [{ effort: null, summary: null }, undefined],
  ])('reasoning %j -> thinking %j', (reasoning, thinking) => {
    expect(decode({ model: 'm', input: 'x', reasoning }).thinking).toEqual(thinking);
  });

  it.each([
    ['none', { type: 'none' }],
    ['required', { type: 'required' }],
    [
      { type: 'function', name: 'f' },
      { type: 'tool', name: 'f' },
    ],
    [
      { type: 'custom', name: 'apply_patch' },
      { type: 'tool', name: 'apply_patch' },
    ],
    [{ type: 'allowed_tools', mode: 'required', tools: [] }, { type: 'required' }],
    [{ type: 'web_search_preview' }, { type: 'auto' }],
  ])('tool_choice %j', (choice, want) => {
    expect(decode({ model: 'm', input: 'x', tool_choice: choice }).toolChoice).toEqual(want);
  });

  it('previous_response_id is kept for the pipeline; outputs may then answer calls not in the input', () => {
    const body = {
      model: 'm',
      previous_response_id: 'resp_prev',
      input: [{ type: 'function_call_output', call_id: 'call_old', output: '42' }],
    };
    const got = decode(body);
    expect(got.previousResponseId).toBe('resp_prev');
    expect(got.messages).toEqual([
      {
        role: 'user',
        parts: [{ type: 'tool_result', callId: 'call_old', content: [{ type: 'text', text: '42' }] }],
      },
    ]);
    expect(decode({ model: 'm', previous_response_id: 'resp_prev' }).messages).toEqual([]);
    // An item reference may hold the call too.
    expect(() =>
      decode({
        model: 'm',
        input: [
          { type: 'item_reference', id: 'fc_1' },
          { type: 'function_call_output', call_id: 'c', output: '' },
        ],
      }),
    ).not.toThrow();
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no model', { input: 'x' }, /model/],
    ['no input', { model: 'm' }, /'input'/],
    ['input a number', { model: 'm', input: 3 }, /input/],
    ['an item that is not an object', { model: 'm', input: ['x'] }, /input\[0\]/],
    ['an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }, /input\[0\]\.role/],
    ['a message without content', { model: 'm', input: [{ role: 'user' }] }, /input\[0\]\.content/],
    [
      'a function_call_output answering no call',
      {
        model: 'm',
        input: [
          { role: 'user', content: 'x' },
          { type: 'function_call_output', call_id: 'call_zz', output: 'r' },
        ],
      },
      /call_zz/,
    ],
    [
      'a custom_tool_call_output answering a call that comes later',
      {
        model: 'm',
        input: [
          { type: 'custom_tool_call_output', call_id: 'c1', output: 'r' },
          { type: 'custom_tool_call', call_id: 'c1', name: 'p', input: '' },
        ],
      },
      /c1/,
    ],
    [
      'a function_call without call_id',
      { model: 'm', input: [{ type: 'function_call', name: 'f' }] },
      /call_id/,
    ],
    [
      'a function_call without name',
      { model: 'm', input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] },
      /name/,
    ],
    [
      'an unknown user content part',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_video', url: 'x' }] }] },
      /input_video/,
    ],
    [
      'an image in an assistant message',
      {
        model: 'm',
        input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x' }] }],
      },
      /assistant/,
    ],
    [
      'an image without URL or file id',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
      /image_url/,
    ],
    [
      'an image URL that is neither http nor data',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x' }] }] },
      /image URLs/,
    ],
    [
      'a nested (chat-shaped) function tool',
      { model: 'm', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] },
      /tools\[0\]\.name/,
    ],
    ['a tool without type', { model: 'm', input: 'x', tools: [{ name: 'f' }] }, /tools\[0\]\.type/],
    ['tools not an array', { model: 'm', input: 'x', tools: {} }, /tools/],
    ['an unknown tool_choice', { model: 'm', input: 'x', tool_choice: 'any' }, /tool_choice/],
    ['an unknown effort', { model: 'm', input: 'x', reasoning: { effort: 'max!' } }, /reasoning\.effort/],
    ['an unknown summary', { model: 'm', input: 'x', reasoning: { summary: 'long' } }, /reasoning\.summary/],
    [
      'a json_schema without schema',
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'o' } } },
      /text\.format\.schema/,
    ],
    [
      'an unknown text format',
      { model: 'm', input: 'x', text: { format: { type: 'xml' } } },
      /text\.format\.type/,
    ],
    ['max_output_tokens zero', { model: 'm', input: 'x', max_output_tokens: 0 }, /max_output_tokens/],
    ['temperature 3', { model: 'm', input: 'x', temperature: 3 }, /temperature/],
    ['stream not a boolean', { model: 'm', input: 'x', stream: 'yes' }, /stream/],
    ['store not a boolean', { model: 'm', input: 'x', store: 'no' }, /store/],
    ['include not a list of strings', { model: 'm', input: 'x', include: [1] }, /include/],
    ['instructions not a string', { model: 'm', input: 'x', instructions: 5 }, /instructions/],
    [
      'encrypted_content not a string',
      { model: 'm', input: [{ type: 'reasoning', summary: [], encrypted_content: 5 }] },
      /encrypted_content/,
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

  it('odd but harmless input does not crash or refuse', () => {
    const got = decode({
      model: 'm',
      input: [
        { role: 'user', content: '' },
        { type: 'reasoning', id: 'rs_empty', summary: [] },
        { type: 'compaction', encrypted_content: 'x' },
        { type: 'local_shell_call_output', call_id: 'c', output: 'o' },
      ],
      tools: [{ type: 'mcp', server_label: 's' }, { type: 'brand_new_tool' }],
      user: 'u',
      truncation: 'auto',
      service_tier: 'flex',
    });
    expect(got.messages).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'opaque', format: 'responses', value: { type: 'compaction', encrypted_content: 'x' } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'opaque',
            format: 'responses',
            value: { type: 'local_shell_call_output', call_id: 'c', output: 'o' },
          },
        ],
      },
    ]);
    expect(got.tools).toEqual([]);
    expect(got.serverTools).toHaveLength(2);
    expect(got.user).toBe('u');
  });
});

describe('responses codec: request encoding for an OpenAI / Azure Responses upstream', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
  // A Claude-Code-shaped conversation, as the Anthropic decoder would put it in the hub.
  const hub: HubRequest = {
    model: 'gpt-5',
    stream: true,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache: { type: 'ephemeral' } },
      { type: 'text', text: 'Be careful.' },
    ],
    messages: [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look', cache: { type: 'ephemeral' } },
          { type: 'image', data: png, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'anthropic thoughts', signature: 'sig', signatureFormat: 'anthropic' },
          { type: 'thinking', text: '', redacted: 'opaque-bytes' },
          {
            type: 'thinking',
            text: 'openai summary',
            signature: 'enc-1',
            signatureFormat: 'responses',
            itemId: 'rs_9',
          },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_1', name: 'read', args: '{"path":"a"}' },
          {
            type: 'tool_call',
            id: 'call_p',
            name: 'apply_patch',
            args: '{"input":"*** Begin"}',
            custom: true,
          },
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
              { type: 'image', url: 'https://example.com/shot.png', detail: 'low' },
            ],
          },
          { type: 'tool_result', callId: 'call_p', content: [{ type: 'text', text: 'ok' }], custom: true },
          { type: 'text', text: 'Continue' },
          { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
          { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
        ],
      },
      {
        role: 'assistant',
        parts: [{ type: 'thinking', text: 'trailing', signature: 'enc-2', signatureFormat: 'responses' }],
      },
    ],
    tools: [
      {
        name: 'read',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'apply_patch', parameters: {}, custom: true },
      { name: 'strict_one', parameters: { type: 'object' }, strict: true },
    ],
    serverTools: [
      { type: 'opaque', format: 'anthropic', value: { type: 'web_search_20250305', name: 'web_search' } },
      { type: 'opaque', format: 'responses', value: { type: 'web_search' } },
    ],
    toolChoice: { type: 'tool', name: 'apply_patch' },
    parallelToolCalls: false,
    maxTokens: 4096,
    temperature: 1,
    topK: 40,
    stop: ['</done>'],
    seed: 7,
    thinking: { enabled: true, budgetTokens: 5000, includeThoughts: true },
    responseFormat: { type: 'json_object' },
    user: 'user-7',
  };
  const body = responsesCodec.encodeRequest(hub, streamCtx) as any;

  it('input items: only Responses reasoning replayed, calls without item ids, results as outputs', () => {
    expect(body.instructions).toBe('You are Claude Code.\n\nBe careful.');
    expect(body.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_9',
        summary: [{ type: 'summary_text', text: 'openai summary' }],
        encrypted_content: 'enc-1',
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
      { type: 'function_call', call_id: 'toolu_1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin' },
      {
        type: 'function_call_output',
        call_id: 'toolu_1',
        output: [
          { type: 'input_text', text: 'file a' },
          { type: 'input_image', image_url: 'https://example.com/shot.png', detail: 'low' },
        ],
      },
      { type: 'custom_tool_call_output', call_id: 'call_p', output: 'ok' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Continue' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toMatch(
      /anthropic thoughts|"sig"|opaque-bytes|cache|server_tool_use|enc-2/,
    );
  });

  it('parameters: strict said explicitly, custom tools, server tools of Responses only, reasoning with encrypted content', () => {
    const { input: _i, instructions: _s, ...rest } = body;
    expect(rest).toEqual({
      model: 'gpt-5',
      tools: [
        {
          type: 'function',
          name: 'read',
          description: 'Read a file',
          parameters: hub.tools[0].parameters,
          strict: false,
        },
        { type: 'custom', name: 'apply_patch' },
        { type: 'function', name: 'strict_one', parameters: { type: 'object' }, strict: true },
        { type: 'web_search' },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
      max_output_tokens: 4096,
      temperature: 1,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      text: { format: { type: 'json_object' } },
      user: 'user-7',
      store: false,
      stream: true,
    });
  });

  it('a plain request: no tools, no reasoning, no stream', () => {
    const b = responsesCodec.encodeRequest(
      {
        model: 'gpt-4.1',
        stream: false,
        system: [],
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        tools: [],
        toolChoice: { type: 'auto' },
        thinking: { enabled: false },
        responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true },
      },
      ctx,
    );
    expect(b).toEqual({
      model: 'gpt-4.1',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      text: { format: { type: 'json_schema', name: 'o', schema: { type: 'object' }, strict: true } },
      store: false,
    });
  });

  it('audio cannot go to a Responses upstream', () => {
    expect(() =>
      responsesCodec.encodeRequest(
        {
          model: 'm',
          stream: false,
          system: [],
          tools: [],
          messages: [{ role: 'user', parts: [{ type: 'file', data: 'AAAA', mediaType: 'audio/wav' }] }],
        },
        ctx,
      ),
    ).toThrow(RelayError);
  });

  it('a Codex request survives decode then encode', () => {
    const original = {
      model: 'gpt-5-codex',
      instructions: 'sys',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'q' }] },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 's' }],
          encrypted_content: 'enc',
        },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'r' },
        { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: 'patch' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: 'ok' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { role: 'user', content: [{ type: 'input_text', text: 'more' }] },
      ],
      tools: [
        { type: 'function', name: 'f', parameters: { type: 'object' }, strict: false },
        { type: 'custom', name: 'apply_patch' },
        { type: 'web_search' },
      ],
      tool_choice: 'required',
      parallel_tool_calls: true,
      max_output_tokens: 50,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      stream: true,
    };
    const again = responsesCodec.encodeRequest(responsesCodec.decodeRequest(original, ctx), ctx);
    expect(again).toEqual(original);
  });
});

describe('responses codec: same-format round trips', () => {
  const files = ['text.json', 'reasoning-summary.json', 'phase-cached-tokens.json', 'image-generation.json'];

  it.each(files)('%s: decode, encode, decode gives the same answer', (file) => {
    const body = fixtureJson(`${DIR}/${file}`);
    const hub = responsesCodec.decodeResponse(body, ctx);
    const encoded = responsesCodec.encodeResponse(hub, ctx) as any;
    expect(answerOfResponse(responsesCodec.decodeResponse(encoded, ctx))).toEqual(answerOfResponse(hub));
    expect(encoded).toMatchObject({
      id: body.id,
      object: 'response',
      created_at: body.created_at,
      model: body.model,
      status: 'completed',
      usage: body.usage,
    });
    const reasoning = body.output.filter((o: any) => o.type === 'reasoning' && o.encrypted_content);
    expect(encoded.output.filter((o: any) => o.type === 'reasoning')).toEqual(
      reasoning.map((o: any) => ({
        id: o.id,
        type: 'reasoning',
        summary: o.summary,
        encrypted_content: o.encrypted_content,
      })),
    );
  });

  const streams = [
    'text.chunks.txt',
    'reasoning-summary.chunks.txt',
    'reasoning-function-call.chunks.txt',
    'phase-cached-tokens.chunks.txt',
    'image-generation.chunks.txt',
  ];

  it.each(streams)('%s: decode, encode, decode gives the same events', (file) => {
    const events = decodeLines(fixtureChunks(`${DIR}/${file}`));
    const frames = sseEvents(encodeEvents(events));
    const again = decodeLines(frames.map((f) => JSON.stringify(f)));
    expect(answerOfEvents(again)).toEqual(answerOfEvents(events));
    checkLifecycle(frames);
  });
});

/**
 * The lifecycle rules clients rely on: increasing sequence numbers from 0, created then in_progress first,
 * deltas only inside an added and not yet done item, content parts and summary parts opened before their
 * deltas, and a final response whose output repeats every item as it was done.
 */
function checkLifecycle(frames: any[]) {
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

describe('responses codec: encoder output through the official openai client', () => {
  let server: Server;
  let client: OpenAI;
  let next: { status: number; type: string; body: string } = {
    status: 200,
    type: 'application/json',
    body: '{}',
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(next.status, { 'content-type': next.type });
        res.end(next.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    client = new OpenAI({ apiKey: 'sk-test', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const params = { model: 'gateway-model', input: 'hi' };
  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };

  const serveStream = (events: HubEvent[]) => {
    const sse = encodeEvents(events);
    checkLifecycle(sseEvents(sse));
    next = { status: 200, type: 'text/event-stream', body: sse };
  };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return client.responses.stream(params).finalResponse();
  };

  it('a whole answer: reasoning, text, refusal, calls (one custom, one with a Gemini signature), usage', async () => {
    const hub: HubResponse = {
      id: 'msg_01abc',
      model: 'claude-sonnet-4-5',
      created: 1770000000,
      parts: [
        { type: 'thinking', text: 'Let me look.', signature: 'anthropic-sig', signatureFormat: 'anthropic' },
        { type: 'thinking', text: 'Own.', signature: 'enc', signatureFormat: 'responses', itemId: 'rs_own' },
        { type: 'thinking', text: '', redacted: 'xx' },
        { type: 'text', text: 'Checking both.' },
        { type: 'refusal', text: 'Not that.' },
        { type: 'tool_call', id: 'toolu_1', name: 'weather', args: '{"city":"Paris"}' },
        {
          type: 'tool_call',
          id: 'fc_2',
          name: 'time',
          args: '',
          signature: 'gem-sig',
          signatureFormat: 'gemini',
        },
        { type: 'tool_call', id: 'call_p', name: 'apply_patch', args: '{"input":"*** Begin"}', custom: true },
        { type: 'opaque', format: 'anthropic', value: { type: 'server_tool_use' } },
      ],
      stop: 'tool_calls',
      usage: usage(100, 40, 60, 10),
    };
    next = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(responsesCodec.encodeResponse(hub, ctx)),
    };
    const got = await client.responses.create(params);
    expect(got.id).toBe('resp_msg_01abc');
    expect(got.status).toBe('completed');
    expect(got.output_text).toBe('Checking both.');
    expect(got.output.map((o) => o.type)).toEqual([
      'reasoning',
      'reasoning',
      'message',
      'function_call',
      'function_call',
      'custom_tool_call',
    ]);
    expect(got.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Let me look.' }] });
    expect(got.output[0]).not.toHaveProperty('encrypted_content');
    expect(got.output[1]).toMatchObject({ id: 'rs_own', encrypted_content: 'enc' });
    expect((got.output[2] as any).content).toEqual([
      { type: 'output_text', text: 'Checking both.', annotations: [], logprobs: [] },
      { type: 'refusal', refusal: 'Not that.' },
    ]);
    expect(got.output.slice(3)).toMatchObject([
      {
        type: 'function_call',
        call_id: 'toolu_1',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        id: expect.stringMatching(/^fc_/),
      },
      { type: 'function_call', call_id: packCallId('fc_2', 'gem-sig'), name: 'time', arguments: '{}' },
      { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin' },
    ]);
    expect(got.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 140,
    });
    expect(JSON.stringify(got)).not.toMatch(/anthropic-sig|server_tool_use/);
  });

  it.each([
    ['max_tokens', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
    ['refusal', 'content_filter'],
  ] as const)('a whole answer stopped by %s is incomplete (%s)', async (stop, reason) => {
    const hub: HubResponse = {
      id: 'resp_1',
      model: 'm',
      created: 1,
      parts: [{ type: 'text', text: 'par' }],
      stop,
      usage: usage(1, 1),
    };
    next = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(responsesCodec.encodeResponse(hub, ctx)),
    };
    const got = await client.responses.create(params);
    expect(got).toMatchObject({ id: 'resp_1', status: 'incomplete', incomplete_details: { reason } });
  });

  it('a blocked prompt is incomplete with content_filter and no output', () => {
    const res = responsesCodec.encodeResponse(
      {
        id: 'x',
        model: 'm',
        created: 1,
        parts: [],
        stop: 'content_filter',
        promptBlocked: 'SAFETY',
        usage: usage(5, 0),
      },
      ctx,
    ) as any;
    expect(res).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [],
    });
  });

  it('streamed text', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ', world' },
      { type: 'finish', stop: 'end' },
      { type: 'usage', usage: usage(10, 3, 2) },
    ];
    const got = await finalOf(events);
    expect(got).toMatchObject({
      id: 'resp_msg_01abc',
      model: 'claude-sonnet-4-5',
      status: 'completed',
      output_text: 'Hello, world',
    });
    expect(got.usage).toMatchObject({
      input_tokens: 10,
      output_tokens: 3,
      total_tokens: 13,
      input_tokens_details: { cached_tokens: 2 },
    });
    // The exact lifecycle Codex reads.
    expect(sseEvents(encodeEvents(events)).map((f) => f.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('streamed thinking (two blocks), text, then parallel calls with interleaved args', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'thinking', text: 'Two plus ' },
      { type: 'thinking', text: 'two.' },
      { type: 'thinking_signature', signature: 'anthropic-sig', format: 'anthropic' },
      { type: 'thinking', text: 'Second block.' },
      { type: 'thinking_signature', signature: 'enc-2', format: 'responses' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' },
      { type: 'tool_args', index: 0, delta: '{"city":' },
      { type: 'tool_call', index: 1, id: 'toolu_b', name: 'time' },
      { type: 'tool_args', index: 1, delta: '{"tz":"CET"' },
      { type: 'tool_args', index: 0, delta: '"Paris"}' },
      { type: 'tool_args', index: 1, delta: '}' },
      { type: 'tool_call', index: 2, id: 'call_p', name: 'apply_patch', custom: true },
      { type: 'tool_args', index: 2, delta: '{"input":"*** Begin\\n' },
      { type: 'tool_args', index: 2, delta: '*** End"}' },
      { type: 'finish', stop: 'tool_calls' },
      { type: 'usage', usage: usage(20, 9, 0, 4) },
    ];
    serveStream(events);
    const deltas: string[] = [];
    const stream = client.responses.stream(params);
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(`${e.output_index}:${e.delta}`));
    const got = await stream.finalResponse();
    expect(got.output.map((o) => o.type)).toEqual([
      'reasoning',
      'reasoning',
      'message',
      'function_call',
      'function_call',
      'custom_tool_call',
    ]);
    expect(got.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Two plus two.' }] });
    expect(got.output[0]).not.toHaveProperty('encrypted_content');
    expect(got.output[1]).toMatchObject({ summary: [{ text: 'Second block.' }], encrypted_content: 'enc-2' });
    expect(got.output_text).toBe('Let me check.');
    expect(got.output.slice(3)).toMatchObject([
      { call_id: 'toolu_a', name: 'weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { call_id: 'toolu_b', name: 'time', arguments: '{"tz":"CET"}', status: 'completed' },
      { call_id: 'call_p', name: 'apply_patch', input: '*** Begin\n*** End', status: 'completed' },
    ]);
    expect(deltas).toEqual(['3:{"city":', '4:{"tz":"CET"', '3:"Paris"}', '4:}']);
    expect(got.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 4 } });
  });

  it('a custom tool a chat upstream called as a function comes back as a custom_tool_call (ctx.customTools)', async () => {
    const c: CodecContext = { ...streamCtx, customTools: ['apply_patch'] };
    const events: HubEvent[] = [
      start,
      { type: 'tool_call', index: 0, id: 'call_x', name: 'apply_patch' },
      { type: 'tool_args', index: 0, delta: '{"input": "*** Begin Patch\\n' },
      { type: 'tool_args', index: 0, delta: '*** End Patch"}' },
      { type: 'finish', stop: 'tool_calls' },
    ];
    const enc = responsesCodec.streamEncoder(c);
    const sse = events.map((e) => enc.push(e)).join('') + enc.end();
    checkLifecycle(sseEvents(sse));
    next = { status: 200, type: 'text/event-stream', body: sse };
    const got = await client.responses.stream(params).finalResponse();
    expect(got.output).toMatchObject([
      {
        type: 'custom_tool_call',
        call_id: 'call_x',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** End Patch',
      },
    ]);
    const whole = responsesCodec.encodeResponse(
      {
        id: 'r',
        model: 'm',
        created: 1,
        parts: [{ type: 'tool_call', id: 'call_y', name: 'apply_patch', args: '{"input":"p"}' }],
        stop: 'tool_calls',
        usage: usage(1, 1),
      },
      c,
    ) as any;
    expect(whole.output).toMatchObject([{ type: 'custom_tool_call', call_id: 'call_y', input: 'p' }]);
  });

  it('encrypted reasoning without summary text is an item of its own; redacted thinking is left out', async () => {
    const got = await finalOf([
      start,
      { type: 'thinking_signature', signature: 'enc-only', format: 'responses' },
      { type: 'redacted_thinking', data: 'xx' },
      { type: 'tool_call', index: 0, id: 'call_1', name: 'f' },
      { type: 'finish', stop: 'tool_calls' },
    ]);
    expect(got.output).toMatchObject([
      { type: 'reasoning', summary: [], encrypted_content: 'enc-only' },
      { type: 'function_call', call_id: 'call_1', arguments: '{}' },
    ]);
  });

  it('a refusal, and usage before or after finish', async () => {
    for (const order of ['before', 'after'] as const) {
      const u: HubEvent = { type: 'usage', usage: usage(30, 7, 4, 2) };
      const fin: HubEvent = { type: 'finish', stop: 'end' };
      const got = await finalOf([
        start,
        { type: 'refusal', text: 'I can’t help with that.' },
        ...(order === 'before' ? [u, fin] : [fin, u]),
      ]);
      expect((got.output[0] as any).content).toMatchObject([
        { type: 'refusal', refusal: 'I can’t help with that.' },
      ]);
      expect(got.usage).toMatchObject({ input_tokens: 30, output_tokens: 7 });
    }
  });

  it('a stream cut by max tokens ends with response.incomplete', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'partial' },
      { type: 'finish', stop: 'max_tokens' },
    ];
    const frames = sseEvents(encodeEvents(events));
    expect(frames.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    expect(frames.at(-2)).toMatchObject({
      type: 'response.output_item.done',
      item: { status: 'incomplete' },
    });
    const got = await finalOf(events);
    expect(got.output_text).toBe('partial');
  });

  it('Responses opaque items go back as items; other formats’ are dropped', async () => {
    const image = { id: 'ig_1', type: 'image_generation_call', status: 'completed', result: 'UklGR' };
    const got = await finalOf([
      start,
      { type: 'opaque', format: 'responses', value: image },
      { type: 'opaque', format: 'anthropic', value: { type: 'web_search_tool_result' } },
      { type: 'finish', stop: 'end' },
    ]);
    expect(got.output).toEqual([image]);
  });

  it('events without a start still open the response first', () => {
    const frames = sseEvents(encodeEvents([{ type: 'text', text: 'x' }]));
    expect(frames[0]).toMatchObject({
      type: 'response.created',
      response: { id: expect.stringMatching(/^resp_/), status: 'in_progress' },
    });
    expect(frames.at(-1).type).toBe('response.completed');
  });

  it('an error mid-stream: an error event and response.failed; the client gets an APIError', async () => {
    const events: HubEvent[] = [
      start,
      { type: 'text', text: 'partial' },
      { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded' } },
      { type: 'text', text: 'ignored' },
    ];
    const enc = responsesCodec.streamEncoder(streamCtx);
    const sse = events.map((e) => enc.push(e)).join('') + enc.end();
    const frames = sseEvents(sse);
    expect(frames.slice(-2)).toMatchObject([
      { type: 'error', code: 'overloaded', error: { type: 'server_error', code: 'overloaded' } },
      {
        type: 'response.failed',
        response: {
          status: 'failed',
          error: { code: 'overloaded', message: expect.stringContaining('Overloaded') },
        },
      },
    ]);
    expect(sse).not.toContain('ignored');
    next = { status: 200, type: 'text/event-stream', body: sse };
    const err = await client.responses
      .stream(params)
      .finalResponse()
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain('Overloaded');
    // And our own decoder reads it back as the same kind of error.
    expect(decodeLines(frames.map((f) => JSON.stringify(f))).at(-1)).toMatchObject({
      type: 'error',
      error: { kind: 'overloaded' },
    });
  });

  it('an error body reaches the client with its status and type', async () => {
    const { status, body } = responsesCodec.encodeError(
      { status: 429, kind: 'quota', message: 'You exceeded your current quota' },
      'req-9',
    );
    next = { status, type: 'application/json', body: JSON.stringify(body) };
    const err = await client.responses.create(params).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(err.message).toContain('req-9');
  });
});

describe('responses codec: errors', () => {
  it('decodes the recorded OpenAI error bodies', () => {
    expect(
      responsesCodec.decodeError(429, fixtureText(`${DIR}/error-insufficient-quota.json`)),
    ).toMatchObject({
      status: 429,
      kind: 'quota',
      code: 'insufficient_quota',
    });
    expect(responsesCodec.decodeError(400, fixtureText(`${DIR}/error-unsupported-temperature.json`))).toEqual(
      {
        status: 400,
        kind: 'invalid_request',
        message: "Unsupported parameter: 'temperature' is not supported with this model.",
        code: null,
        param: 'temperature',
      },
    );
  });

  it.each([
    ['invalid_request', 400, 'invalid_request_error'],
    ['authentication', 401, 'authentication_error'],
    ['rate_limit', 429, 'rate_limit_error'],
    ['quota', 429, 'insufficient_quota'],
    ['server', 500, 'server_error'],
    ['overloaded', 503, 'server_error'],
  ] as const)('kind %s -> %i %s, and back', (kind, status, type) => {
    const out = responsesCodec.encodeError({ status: 0, kind, message: 'm' }, 'req-1');
    expect(out.status).toBe(status);
    expect((out.body as any).error).toMatchObject({ message: 'm (request id: req-1)', type });
    expect(responsesCodec.decodeError(out.status, JSON.stringify(out.body)).kind).toBe(kind);
  });
});
