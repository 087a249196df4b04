import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { networkError } from '../../call/upstream-client.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import type {
  HubError,
  HubEvent,
  HubStop,
  HubStreamDecoder,
  HubStreamEncoder,
  HubUsage,
  SseEvent,
} from '../../formats/hub.ts';
import type { AnswerGuard } from '../../guardrails/answer.ts';
import type { UpstreamResponse } from '../../providers/types.ts';
import { RelayError } from '../../relay-error.ts';
import { ClientStream, type ClientStreamOptions } from './client-stream.ts';

export interface FormatStreamOptions extends ClientStreamOptions {
  res: UpstreamResponse;
  /** Reads the upstream's events (for usage and errors, and to convert them). */
  decoder: HubStreamDecoder;
  /** A fresh decoder of the same format, to read the text of a relayed stream that ended without usage. */
  newDecoder: () => HubStreamDecoder;
  /** Writes the client's events; absent = the upstream's bytes go to the client as they came. */
  encoder?: HubStreamEncoder;
  /** With no encoder: each upstream SSE payload becomes an element of a JSON array (Gemini without alt=sse). */
  arrayFrames?: boolean;
  /** With no encoder: the event that ends the client's stream after a failure mid-stream, in its protocol. */
  errorFrame: (err: HubError) => string;
  /**
   * With no encoder: each upstream event's bytes for the client ('' drops it), written instead of the raw
   * chunks, for a same-format stream the gateway edits (OpenAI's usage chunk, chat chunk rewrites).
   */
  relayEvent?: (ev: SseEvent, mayMatter: boolean) => string;
  /** With relayEvent: the bytes that end a stream that ended well (a usage chunk counted here, `[DONE]`). */
  closing?: (out: FormatOutcome) => Promise<string>;
  /** A relayed stream's finish chunk is read (`FormatOutcome.stop`); otherwise `[DONE]` reads as stopped. */
  readFinish?: boolean;
  /**
   * Guardrails on the answer. With an encoder the text events pass through it here; a relayed stream's
   * relayEvent passes its chunks through it. Either way a block ends the stream.
   */
  guard?: AnswerGuard;
}

export interface FormatOutcome {
  usage: HubUsage | null;
  /** Text the client received (content, thinking, tool names and arguments), for counting when usage is missing. */
  text: string;
  toolCalls: number;
  firstAt: number;
  clientGone: boolean;
  /** Set when the upstream failed after the stream had started. */
  error: RelayError | null;
  /** The answer's id, model and creation time as its first event gave them. */
  start?: { id: string; model: string; created?: number };
  /** Why the model stopped, as the answer's finish event said. */
  stop?: HubStop;
}

/**
 * Events that may carry usage (OpenAI, Anthropic, Responses `usage`; Gemini `usageMetadata`) or an error. One
 * pattern: it costs less per event than searching for each key on its own (`indexOf` and `includes` cost more
 * than the whole pattern).
 */
const MAY_MATTER = /"usage(?:Metadata)?"\s*:\s*\{|"error"/;
/**
 * The same, or OpenAI's finish reason, for a traced request (its span records why the model stopped: a stream
 * that ends with `[DONE]` reads as stopped, so length, tool calls and content filters need the finish chunk).
 * The finish reason is matched as any `..._reason` key with a string value (Anthropic's stop_reason,
 * OpenRouter's native_finish_reason also match; a few more events decoded, nothing missed) and comes first:
 * written as `"finish_reason"` after the other alternatives, V8's matcher ran three times slower on every
 * event. Decoding the finish chunk was most of what a relayed stream cost beyond the bytes (bench/stream-cost),
 * so untraced requests leave it undecoded.
 */
const MAY_MATTER_OR_FINISH = /_reason"\s*:\s*"|"usage(?:Metadata)?"\s*:\s*\{|"error"/;
export const mayMatter = (data: string, finish = false): boolean =>
  (finish ? MAY_MATTER_OR_FINISH : MAY_MATTER).test(data);

/** A hub error as the relay's error (not local: another channel may do better). */
export const relayErrorOf = (e: HubError) =>
  new RelayError(
    e.status,
    e.message,
    e.kind === 'quota' ? 'insufficient_quota' : 'upstream_error',
    e.code ?? null,
    e.param ?? null,
    false,
  );

const hubErrorOf = (e: RelayError): HubError => ({
  status: e.status,
  kind: e.status === 504 ? 'timeout' : 'server',
  message: e.message,
  code: e.code,
});

/**
 * Relays a stream of any wire format event by event as it arrives (never buffered whole). Every upstream
 * event goes through its format's decoder, which yields the usage, the produced text and errors. With an
 * encoder the client gets the events converted into its own format; without one (same format) it gets the
 * upstream's bytes unchanged. As with the OpenAI stream, nothing is sent before the first event, so a stream
 * that fails before it can still be retried on another channel.
 */
export async function relayFormatStream(o: FormatStreamOptions, startedAt: number): Promise<FormatOutcome> {
  const out: FormatOutcome = {
    usage: null,
    text: '',
    toolCalls: 0,
    firstAt: 0,
    clientGone: false,
    error: null,
  };
  const client = new ClientStream(o, startedAt);
  const pending: SseEvent[] = [];
  // The parser's message is already an SseEvent (its extra id is ignored).
  const parser = createParser({ onEvent: (m: EventSourceMessage) => pending.push(m) });
  const text = new StringDecoder('utf8');
  let elements = 0;
  /** The encoder's closing events were already written. */
  let ended = false;
  /** OpenAI's end marker came. */
  let sawDone = false;

  const track = (e: HubEvent) => {
    switch (e.type) {
      case 'start':
        out.start = { id: e.id, model: e.model, created: e.created };
        break;
      case 'usage':
        out.usage = e.usage;
        break;
      case 'finish':
        out.stop = e.stop;
        break;
      case 'text':
      case 'thinking':
      case 'refusal':
        out.text += e.text;
        break;
      case 'tool_call':
        out.toolCalls++;
        out.text += e.name;
        break;
      case 'tool_args':
        out.text += e.delta;
        break;
      case 'error':
        out.error = relayErrorOf(e.error);
        break;
    }
  };
  /** The client's bytes for the events read so far. */
  const drain = (events: HubEvent[], guarded = false): string => {
    let buf = '';
    if (o.guard && o.encoder && !guarded) events = o.guard.events(events); // guardrails: answer side
    for (const e of events) {
      track(e);
      if (o.encoder && (client.started || e.type !== 'error')) buf += o.encoder.push(e);
    }
    return buf;
  };
  // Relayed as they came (no encoder): only events that may carry usage or an error are decoded as they
  // pass; every event is kept, to read the text with a fresh decoder if the stream ends without usage.
  const relayed = !o.encoder;
  const framed = !!o.encoder || !!o.arrayFrames || !!o.relayEvent;
  const kept: SseEvent[] = [];
  const decodePending = (): string => {
    let buf = '';
    for (const ev of pending) {
      if (relayed) {
        kept.push(ev);
        if (ev.data === '[DONE]') sawDone = true;
        const matters = sawDone || mayMatter(ev.data, o.readFinish);
        if (matters) {
          // An OpenAI stream's relay reads these events too: parsed once, for both.
          if (o.relayEvent && !sawDone) ev.json = parseJsonOrNull(ev.data);
          drain(o.decoder.push(ev));
        }
        if (o.relayEvent && !(out.error && !client.started)) buf += o.relayEvent(ev, matters);
      } else buf += drain(o.decoder.push(ev));
      if (o.arrayFrames && ev.data) buf += `${elements++ === 0 ? '[' : ',\r\n'}${ev.data}`;
    }
    pending.length = 0;
    return buf;
  };
  /**
   * How a relayed OpenAI stream without `[DONE]` ended (its finish, or a cut), read by a fresh decoder from
   * every event it sent: the decoder that ran along saw only the events that may matter.
   */
  const replayedEnd = () => {
    const decoder = o.newDecoder();
    for (const ev of kept) decoder.push(ev);
    return decoder.end();
  };
  /** The produced text (and any usage) of a relayed stream that reported none, read from every event it sent. */
  const readKept = () => {
    const decoder = o.newDecoder();
    out.text = '';
    out.toolCalls = 0;
    for (const ev of kept) for (const e of decoder.push(ev)) if (e.type !== 'error') track(e);
    for (const e of decoder.end()) if (e.type !== 'error') track(e);
  };

  try {
    for await (const chunk of o.res.body) {
      parser.feed(text.write(chunk as Buffer));
      const buf = decodePending();
      if (o.guard?.blocked) {
        // A blocked answer is the gateway's refusal: never retried elsewhere; once started, an error frame ends it
        // (an encoder has written it from the guard's error event already).
        if (!client.started) throw o.guard.error();
        out.error = o.guard.error();
        await client.write(o.encoder ? buf : buf + o.errorFrame(o.guard.hubError()));
        break;
      }
      // Before the first byte an error event is an ordinary failure: thrown, so another channel may answer.
      if (out.error && !client.started) throw out.error;
      if (framed) {
        if (buf) await client.write(buf);
      } else await client.write(chunk as Buffer);
      if (client.clientGone) break;
    }
    if (!client.clientGone && !o.guard?.blocked) {
      parser.feed(`${text.end()}\n\n`);
      let buf = decodePending();
      const failedBefore = out.error !== null;
      buf += drain(o.relayEvent && !sawDone ? replayedEnd() : o.decoder.end());
      if (o.guard && o.encoder) buf += drain(o.guard.end(), true);
      if (o.guard?.blocked) {
        if (!client.started) throw o.guard.error();
        out.error = o.guard.error(); // a relayed stream gets its error frame below; an encoder wrote it
      }
      if (out.error && !client.started) throw out.error;
      // A relayed stream cut short without a word (no finish, no end marker): the client is told, as a
      // converted one is by its encoder.
      if (o.relayEvent && out.error && !failedBefore)
        buf += o.errorFrame(o.guard?.blocked ? o.guard.hubError() : hubErrorOf(out.error));
      if (buf && framed) await client.write(buf);
      // An encoder may hold everything until the end (a Gemini client gets function calls whole).
      if (o.encoder && !client.started && (out.usage || out.toolCalls || out.text)) {
        const tail = o.encoder.end();
        if (tail) await client.write(tail);
        ended = true;
      }
    }
  } catch (err) {
    if (!client.clientGone) {
      const e = err instanceof RelayError ? err : networkError(err);
      if (!client.started) throw e;
      out.error = e;
      const hub = hubErrorOf(e);
      if (o.encoder) await client.write(o.encoder.push({ type: 'error', error: hub }));
      else if (!o.arrayFrames) await client.write(o.errorFrame(hub));
    }
  } finally {
    client.stop();
    out.firstAt = client.firstAt;
    out.clientGone = client.clientGone;
  }
  if (!client.started && !out.clientGone)
    throw new RelayError(
      502,
      'the upstream ended the stream without sending anything',
      'upstream_error',
      'empty_stream',
      null,
      false,
    );
  if (relayed && (!out.usage || out.clientGone || out.error)) readKept();
  if (!out.clientGone && !o.raw.writableEnded) {
    let tail = o.encoder && !ended ? o.encoder.end() : '';
    if (o.arrayFrames) tail += elements ? ']' : '[]';
    if (o.closing && !out.error) tail += await o.closing(out);
    if (!out.clientGone && !o.raw.writableEnded) o.raw.end(tail);
  }
  return out;
}
