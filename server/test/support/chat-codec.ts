import OpenAI from 'openai';
import { chatCodec } from '../../src/relay/formats/chat/index.ts';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubResponse,
  HubStop,
  HubUsage,
} from '../../src/relay/formats/hub.ts';
import { sdkOnCannedUpstream } from './canned-upstream.ts';
import { decodeWith, encodeWith, foldEvents, sseDataOf, usage } from './codec-answers.ts';
export const ctx: CodecContext = { model: 'gateway-model', stream: false, requestId: 'req-test' };
export const streamCtx: CodecContext = { ...ctx, stream: true, includeUsage: true };

export { usage };

export interface Call {
  id: string;
  name: string;
  args: string;
}

/** What a client would see of an answer: its texts, thinking, calls, stop and usage. */
export interface Answer {
  id?: string;
  text: string;
  thinking: string;
  refusal: string;
  calls: Call[];
  stop?: HubStop;
  usage?: HubUsage;
}

export function answerOfParts(parts: HubPart[]): Answer {
  const a: Answer = { text: '', thinking: '', refusal: '', calls: [] };
  for (const p of parts) {
    if (p.type === 'text') a.text += p.text;
    else if (p.type === 'thinking') a.thinking += p.text;
    else if (p.type === 'refusal') a.refusal += p.text;
    else if (p.type === 'tool_call') a.calls.push({ id: p.id, name: p.name, args: p.args });
  }
  return a;
}

export const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
});

export const answerOfEvents = (events: HubEvent[]): Answer =>
  foldEvents(events, { text: '', thinking: '', refusal: '', calls: [] } as Answer, {
    call: (e) => ({ id: e.id, name: e.name, args: '' }),
    other(a, e) {
      if (e.type === 'refusal') a.refusal += e.text;
    },
  });

/** Replays a recorded stream through the decoder as the upstream frames it (each line, then [DONE]). */
export function decodeLines(lines: string[], done = true): HubEvent[] {
  const frames = lines.map((data) => ({ data }));
  return decodeWith(chatCodec, streamCtx, done ? [...frames, { data: '[DONE]' }] : frames);
}

/** Runs hub events through the encoder and returns its SSE bytes. */
export function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  return encodeWith(chatCodec, events, c);
}

/** The data payloads of SSE text. */
export const sseData = (sse: string) => sseDataOf(sse, '\n\n');

/** The official openai client's Chat Completions, reading what the encoder wrote from a loopback upstream. */
export function chatClient() {
  const { sdk, upstream, serveStream } = sdkOnCannedUpstream(
    (url) => new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 }),
    (events) => encodeEvents(events),
  );
  const params = { model: 'gateway-model', messages: [{ role: 'user' as const, content: 'hi' }] };
  const finalOf = (events: HubEvent[]) => {
    serveStream(events);
    return sdk.client.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .finalChatCompletion();
  };
  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };
  return { sdk, upstream, params, serveStream, finalOf, start };
}
