import { describe, expect, it } from 'vitest';
import type { HubStop, HubUsage } from '../src/relay/formats/hub.ts';
import { responsesCodec } from '../src/relay/formats/responses/index.ts';
import { RelayError } from '../src/relay/relay-error.ts';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import {
  answerOfEvents,
  answerOfResponse,
  ctx,
  DIR,
  decodeLines,
  emptyAnswer,
  recordedFinal,
  streamCtx,
  usage,
} from './support/responses-codec.ts';

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
