import type { FastifyInstance } from 'fastify';
import { codecFor } from '../../../relay/formats/codecs.ts';
import type {
  HubEvent,
  HubPart,
  HubRequest,
  HubResponse,
  HubStop,
  SseEvent,
  WireFormat,
} from '../../../relay/formats/hub.ts';
import { emptyUsage } from '../../../relay/formats/hub.ts';

/** One request of a script as its client sent it and what came back, read in the client's own format. */
export type Turn =
  | { ok: true; answer: HubResponse; streamEnded: boolean }
  | { ok: false; reason: string; status: number; code: TurnFailure };

/** What kind of failure a turn had, for the console's words. */
export type TurnFailure = 'http_error' | 'stream_malformed' | 'answer_malformed' | 'stream_error';

/** Where each client format sends a generation request (the endpoint its SDK calls). */
function pathOf(format: WireFormat, model: string, stream: boolean): string {
  if (format === 'openai') return '/v1/chat/completions';
  if (format === 'responses') return '/v1/responses';
  if (format === 'anthropic') return '/v1/messages';
  const m = encodeURIComponent(model);
  return stream ? `/v1beta/models/${m}:streamGenerateContent?alt=sse` : `/v1beta/models/${m}:generateContent`;
}

const HEADERS: Record<WireFormat, Record<string, string>> = {
  openai: {},
  responses: {},
  anthropic: { 'anthropic-version': '2023-06-01' },
  gemini: {},
};

/**
 * Sends one hub request in a client's wire format through the gateway's own relay (an in-process HTTP request
 * to its /v1 routes, so authentication, routing to the pinned channel, conversion, billing and logging are the
 * ones API callers get) and reads the answer back with that format's codec.
 */
export async function sendAs(
  app: FastifyInstance,
  key: string,
  format: WireFormat,
  req: HubRequest,
): Promise<Turn> {
  const codec = codecFor(format);
  const ctx = { model: req.model, stream: req.stream, requestId: 'compat-check' };
  const body = codec.encodeRequest(req, ctx);
  if (format === 'openai' && req.stream) body.stream_options = { include_usage: true };
  const res = await app.inject({
    method: 'POST',
    url: pathOf(format, req.model, req.stream),
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...HEADERS[format],
    },
    payload: JSON.stringify(body),
  });
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const err = codec.decodeError(res.statusCode, res.body);
    return {
      ok: false,
      status: res.statusCode,
      code: 'http_error',
      reason: `HTTP ${res.statusCode}: ${err.message}`,
    };
  }
  try {
    if (!req.stream)
      return { ok: true, answer: codec.decodeResponse(JSON.parse(res.body), ctx), streamEnded: true };
    if (!String(res.headers['content-type'] ?? '').includes('text/event-stream'))
      return {
        ok: false,
        status: res.statusCode,
        code: 'stream_malformed',
        reason: 'stream malformed: the answer is not an event stream',
      };
    const decoder = codec.streamDecoder(ctx);
    const events: HubEvent[] = [];
    for (const ev of sseFrames(res.body)) events.push(...decoder.push(ev));
    events.push(...decoder.end());
    return collect(events, req.model);
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    return {
      ok: false,
      status: res.statusCode,
      code: req.stream ? 'stream_malformed' : 'answer_malformed',
      reason: `${req.stream ? 'stream' : 'answer'} malformed: ${message}`,
    };
  }
}

/** The frames of a server-sent event stream: each `event:` name with its joined `data:` lines. */
export function sseFrames(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
    }
    if (data.length) out.push({ ...(event ? { event } : {}), data: data.join('\n') });
  }
  return out;
}

/** A stream's hub events as the answer they add up to; an error event makes the turn a failure. */
function collect(events: HubEvent[], model: string): Turn {
  const parts: HubPart[] = [];
  const calls = new Map<number, Extract<HubPart, { type: 'tool_call' }>>();
  let stop: HubStop | undefined;
  let usage = emptyUsage();
  let id = '';
  const last = () => parts[parts.length - 1];
  for (const ev of events) {
    if (ev.type === 'start') id = ev.id;
    else if (ev.type === 'text') {
      const p = last();
      if (p?.type === 'text') p.text += ev.text;
      else parts.push({ type: 'text', text: ev.text });
    } else if (ev.type === 'thinking') {
      const p = last();
      if (p?.type === 'thinking' && !p.signature && p.redacted === undefined) p.text += ev.text;
      else parts.push({ type: 'thinking', text: ev.text });
    } else if (ev.type === 'thinking_signature') {
      const p = last();
      const signed = {
        signature: ev.signature,
        signatureFormat: ev.format,
        ...(ev.itemId ? { itemId: ev.itemId } : {}),
      };
      if (p?.type === 'thinking' && !p.signature && p.redacted === undefined) Object.assign(p, signed);
      else parts.push({ type: 'thinking', text: '', ...signed });
    } else if (ev.type === 'redacted_thinking') parts.push({ type: 'thinking', text: '', redacted: ev.data });
    else if (ev.type === 'tool_call') {
      const call = {
        type: 'tool_call' as const,
        id: ev.id,
        name: ev.name,
        args: '',
        ...(ev.custom ? { custom: true } : {}),
        ...(ev.signature ? { signature: ev.signature, signatureFormat: ev.signatureFormat } : {}),
      };
      calls.set(ev.index, call);
      parts.push(call);
    } else if (ev.type === 'tool_args') {
      const call = calls.get(ev.index);
      if (!call)
        return {
          ok: false,
          status: 200,
          code: 'stream_malformed',
          reason: 'stream malformed: tool arguments before their call',
        };
      call.args += ev.delta;
    } else if (ev.type === 'opaque') parts.push({ type: 'opaque', format: ev.format, value: ev.value });
    else if (ev.type === 'usage') usage = ev.usage;
    else if (ev.type === 'finish') stop = ev.stop;
    else if (ev.type === 'error')
      return {
        ok: false,
        status: ev.error.status,
        code: 'stream_error',
        reason: `stream error: ${ev.error.message}`,
      };
  }
  return {
    ok: true,
    streamEnded: stop !== undefined,
    answer: { id, model, created: 0, parts, stop: stop ?? 'end', usage },
  };
}
