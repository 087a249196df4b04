import { expect } from 'vitest';
import type { UpstreamCodec, WireCodec } from '../../src/relay/formats/codec.ts';
import type { CodecContext, HubEvent, HubStop, HubUsage } from '../../src/relay/formats/hub.ts';

/** Usage as the codecs report it (no one-hour cache writes in these tests). */
export const usage = (
  input: number,
  output: number,
  cacheRead = 0,
  reasoning = 0,
  cacheWrite = 0,
): HubUsage => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  cacheWrite1h: 0,
  reasoning,
});

/** What every format's tests read of an answer alike. */
interface AnswerBase<C> {
  id?: string;
  text: string;
  thinking: string;
  calls: C[];
  stop?: HubStop;
  usage?: HubUsage;
}

type ToolCallEvent = Extract<HubEvent, { type: 'tool_call' }>;

/**
 * Folds decoded stream events into what a client would see, the same way for every format: the start's id,
 * text and thinking, each call opened once and then its arguments appended, usage, a single finish. A format
 * makes its calls from their opening event (`call`) and reads the rest its own way (`other`: refusals,
 * signatures, opaque items, and the finish's extras after the stop is set).
 */
export function foldEvents<C extends { args: string }, A extends AnswerBase<C>>(
  events: HubEvent[],
  a: A,
  format: { call(e: ToolCallEvent): C; other?(a: A, e: HubEvent): void },
): A {
  const calls = new Map<number, C>();
  for (const e of events) {
    if (e.type === 'start') a.id = e.id;
    else if (e.type === 'text') a.text += e.text;
    else if (e.type === 'thinking') a.thinking += e.text;
    else if (e.type === 'tool_call') {
      if (calls.has(e.index)) throw new Error(`tool_call ${e.index} opened twice`);
      calls.set(e.index, format.call(e));
    } else if (e.type === 'tool_args') {
      const c = calls.get(e.index);
      if (!c) throw new Error(`tool_args for unopened call ${e.index}`);
      c.args += e.delta;
    } else if (e.type === 'usage') a.usage = e.usage;
    else if (e.type === 'finish') {
      if (a.stop) throw new Error('finish came twice');
      a.stop = e.stop;
    }
    format.other?.(a, e);
  }
  a.calls = [...calls.values()];
  return a;
}

/** Runs hub events through a format's stream encoder and returns its bytes. */
export function encodeWith(codec: WireCodec, events: HubEvent[], c: CodecContext): string {
  const enc = codec.streamEncoder(c);
  return events.map((e) => enc.push(e)).join('') + enc.end();
}

type Frame = Parameters<ReturnType<UpstreamCodec['streamDecoder']>['push']>[0];

/** Replays SSE frames through a format's stream decoder, then ends it. */
export function decodeWith(codec: UpstreamCodec, c: CodecContext, frames: Frame[]): HubEvent[] {
  const dec = codec.streamDecoder(c);
  const events: HubEvent[] = [];
  for (const f of frames) events.push(...dec.push(f));
  events.push(...dec.end());
  return events;
}

/** The data payloads of SSE text whose frames end with `separator`, each checked to be a `data:` line. */
export const sseDataOf = (sse: string, separator: string) =>
  sse
    .split(separator)
    .filter((f) => f.trim())
    .map((f) => {
      expect(f.startsWith('data: ')).toBe(true);
      return f.slice('data: '.length);
    });
