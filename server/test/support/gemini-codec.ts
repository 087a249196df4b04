import { GoogleGenAI } from '@google/genai';
import { geminiCodec } from '../../src/relay/formats/gemini/index.ts';
import type {
  CodecContext,
  HubEvent,
  HubPart,
  HubRequest,
  HubResponse,
  HubStop,
  HubUsage,
} from '../../src/relay/formats/hub.ts';
import { sdkOnCannedUpstream } from './canned-upstream.ts';
import { decodeWith, encodeWith, foldEvents, sseDataOf, usage } from './codec-answers.ts';
export const ctx: CodecContext = { model: 'gemini-2.5-flash', stream: false, requestId: 'req-test' };
export const streamCtx: CodecContext = { ...ctx, stream: true };
export const DIR = 'google/generate-content/';

export { usage };

export interface Call {
  id: string;
  name: string;
  args: string;
  signature?: string;
}

/** What a client would see of an answer: its texts, thinking, calls (with signatures), stop and usage. */
export interface Answer {
  id?: string;
  text: string;
  thinking: string;
  signatures: string[];
  calls: Call[];
  stop?: HubStop;
  usage?: HubUsage;
  promptBlocked?: string;
}

export function answerOfParts(parts: HubPart[]): Answer {
  const a: Answer = { text: '', thinking: '', signatures: [], calls: [] };
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') a.text += p.text;
    else if (p.type === 'thinking') {
      a.thinking += p.text;
      if (p.signature) a.signatures.push(p.signature);
    } else if (p.type === 'tool_call')
      a.calls.push({
        id: p.id,
        name: p.name,
        args: p.args,
        ...(p.signature ? { signature: p.signature } : {}),
      });
  }
  return a;
}

export const answerOfResponse = (r: HubResponse): Answer => ({
  ...answerOfParts(r.parts),
  id: r.id,
  stop: r.stop,
  usage: r.usage,
  ...(r.promptBlocked ? { promptBlocked: r.promptBlocked } : {}),
});

export const answerOfEvents = (events: HubEvent[]): Answer =>
  foldEvents(events, { text: '', thinking: '', signatures: [], calls: [] } as Answer, {
    call: (e) => ({ id: e.id, name: e.name, args: '', ...(e.signature ? { signature: e.signature } : {}) }),
    other(a, e) {
      if (e.type === 'refusal') a.text += e.text;
      else if (e.type === 'thinking_signature') a.signatures.push(e.signature);
      else if (e.type === 'finish' && e.promptBlocked) a.promptBlocked = e.promptBlocked;
    },
  });

/** Replays recorded chunk payloads through the decoder, one SSE event each. */
export function decodeLines(lines: string[]): HubEvent[] {
  return decodeWith(
    geminiCodec,
    streamCtx,
    lines.map((data) => ({ data })),
  );
}

/** Runs hub events through the encoder and returns its bytes. */
export function encodeEvents(events: HubEvent[], c: CodecContext = streamCtx): string {
  return encodeWith(geminiCodec, events, c);
}

/** The data payloads of SSE text framed as Google frames it (CRLF CRLF). */
export const sseData = (sse: string) => sseDataOf(sse, '\r\n\r\n');

export const chunksOf = (sse: string) => sseData(sse).map((p) => JSON.parse(p));

/** A request body decoded as the gateway's Gemini route does. */
export const decode = (body: Record<string, unknown>, c: CodecContext = ctx) =>
  geminiCodec.decodeRequest(body, c);
export const user = (...parts: unknown[]) => ({ role: 'user', parts });
export const modelTurn = (...parts: unknown[]) => ({ role: 'model', parts });

/** A hub request encoded for a Gemini upstream. */
export const base: HubRequest = {
  model: 'gemini-2.5-flash',
  stream: false,
  system: [],
  messages: [],
  tools: [],
};
export const encode = (req: Partial<HubRequest>) =>
  geminiCodec.encodeRequest({ ...base, ...req }, ctx) as any;
export const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 5, 5, 5, 5]).toString('base64');

/** The official @google/genai client, reading what the encoder wrote from a loopback upstream. */
export function geminiClient() {
  const { sdk, upstream, serveStream } = sdkOnCannedUpstream(
    (url) => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: url } }),
    (events) => encodeEvents(events),
  );
  const model = 'gemini-2.5-flash';
  const contents = 'hi';
  const serveJson = (body: unknown, status = 200) => {
    upstream.reply = { status, type: 'application/json', body: JSON.stringify(body) };
  };
  const streamed = async () => {
    const out: any[] = [];
    for await (const c of await sdk.client.models.generateContentStream({ model, contents })) out.push(c);
    return out;
  };
  const start: HubEvent = { type: 'start', id: 'msg_01abc', model: 'claude-sonnet-4-5', created: 1770000000 };
  return { sdk, upstream, model, contents, serveJson, serveStream, streamed, start };
}
