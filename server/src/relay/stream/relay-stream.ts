import type { ServerResponse } from 'node:http';
import type { Usage } from '../billing/quota.ts';
import { RelayError } from '../errors.ts';
import { readUsage } from '../formats/openai/usage.ts';
import type { AnswerGuard } from '../guardrails/answer.ts';
import type { UpstreamResponse } from '../providers/types.ts';
import { networkError } from '../upstream.ts';
import { ClientStream, type ClientStreamOptions } from './client-stream.ts';
import { SseLineReader } from './sse.ts';

export interface StreamOptions extends ClientStreamOptions {
  res: UpstreamResponse;
  /** The client asked for the usage chunk; otherwise the usage-only chunk the gateway requested is dropped. */
  wantsUsage: boolean;
  /** Rewrites each parsed chunk before it is sent (channel settings); absent = events forwarded as received. */
  rewrite?: (chunk: any) => any[];
  /** Guardrails on the answer (its check runs in `rewrite`): a block ends the stream with an error event. */
  guard?: AnswerGuard;
}

export interface StreamOutcome {
  usage: Usage | null;
  /** Text the client received (content, reasoning, tool-call names and arguments), for counting when usage is missing. */
  text: string;
  toolCalls: number;
  /** ms since the call started until the first event reached the client. */
  firstAt: number;
  clientGone: boolean;
  /** Set when the upstream failed after the stream had started. */
  error: RelayError | null;
  /** Latest id/created/model seen, for a synthesised usage chunk. */
  meta: { id?: string; created?: number; model?: string };
  /**
   * Events forwarded without being parsed (no usage, no error in them). Their text is read only when the
   * stream ends without usage (`readHeld`), which is rare: most streams are billed from the upstream's usage.
   */
  held: string[];
}

/** Events that may carry usage or an error are parsed as they pass; the others are only forwarded. */
const MAY_MATTER = /"usage"\s*:\s*\{|"error"/;

/** Reads the text and tool calls of the events that were forwarded unparsed (for counting usage here). */
export function readHeld(out: StreamOutcome): void {
  for (const p of out.held) {
    try {
      collect(JSON.parse(p), out);
    } catch {}
  }
  out.held = [];
}

function collect(chunk: any, out: StreamOutcome): void {
  if (chunk.id) out.meta.id = chunk.id;
  if (chunk.created) out.meta.created = chunk.created;
  if (chunk.model) out.meta.model = chunk.model;
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  for (const c of choices) {
    const d = c?.delta;
    if (typeof c?.text === 'string') out.text += c.text;
    if (!d) continue;
    if (typeof d.content === 'string') out.text += d.content;
    if (typeof d.reasoning_content === 'string') out.text += d.reasoning_content;
    if (typeof d.reasoning === 'string') out.text += d.reasoning;
    if (Array.isArray(d.tool_calls)) {
      for (const t of d.tool_calls) {
        if (t?.function?.name) {
          out.text += t.function.name;
          out.toolCalls++;
        }
        if (typeof t?.function?.arguments === 'string') out.text += t.function.arguments;
      }
    }
  }
}

/**
 * Forwards an OpenAI-format event stream chunk by chunk as it arrives (never buffered whole), collecting usage
 * and the produced text. Nothing is sent to the client until the first event, so a stream that fails before it
 * can still be retried on another channel (the error is thrown). Once started, an upstream failure ends the
 * client's stream with an error event and the outcome says what was produced; a client that leaves aborts the
 * upstream read.
 */
export async function relayStream(o: StreamOptions, startedAt: number): Promise<StreamOutcome> {
  const out: StreamOutcome = {
    usage: null,
    text: '',
    toolCalls: 0,
    firstAt: 0,
    clientGone: false,
    error: null,
    meta: {},
    held: [],
  };
  const reader = new SseLineReader();
  const client = new ClientStream(o, startedAt);
  const started = () => client.started;

  const handle = (payloads: string[]): string => {
    let buf = '';
    for (const p of payloads) {
      if (!p || p === '[DONE]') continue;
      if (!o.rewrite && !MAY_MATTER.test(p)) {
        out.held.push(p);
        buf += `data: ${p}\n\n`;
        continue;
      }
      let chunk: any;
      try {
        chunk = JSON.parse(p);
      } catch {
        continue;
      }
      if (chunk?.error) {
        out.error = new RelayError(
          502,
          String(chunk.error.message ?? 'upstream error'),
          String(chunk.error.type ?? 'upstream_error'),
          chunk.error.code ?? null,
          null,
          false,
        );
        // Before the first byte an error event is an ordinary failure: thrown below, so another channel may answer.
        if (!started()) continue;
      } else {
        collect(chunk, out);
      }
      const usage = readUsage(chunk?.usage);
      if (usage) {
        out.usage = usage;
        if (!o.wantsUsage && Array.isArray(chunk.choices) && chunk.choices.length === 0) continue;
      }
      if (o.rewrite) for (const c of o.rewrite(chunk)) buf += `data: ${JSON.stringify(c)}\n\n`;
      else buf += `data: ${p}\n\n`;
    }
    return buf;
  };

  try {
    for await (const chunk of o.res.body) {
      const buf = handle(reader.push(chunk as Buffer));
      if (o.guard?.blocked) {
        // The gateway's refusal: never retried elsewhere; once started, finishStream writes the error event.
        if (!started()) throw o.guard.error();
        out.error = o.guard.error();
        if (buf) await client.write(buf);
        break;
      }
      if (out.error && !started()) throw out.error;
      if (buf) await client.write(buf);
      if (client.clientGone) break;
    }
    const tail = handle(reader.end());
    if (o.guard?.blocked && !out.error) {
      if (!started()) throw o.guard.error();
      out.error = o.guard.error();
    }
    if (tail) await client.write(tail);
  } catch (err) {
    if (!client.clientGone) {
      const e = networkError(err);
      if (!started()) throw e;
      out.error = e;
    }
  } finally {
    client.stop();
    out.firstAt = client.firstAt;
    out.clientGone = client.clientGone;
  }
  if (!started() && !out.clientGone) {
    if (out.error) throw out.error;
    throw new RelayError(
      502,
      'the upstream ended the stream without sending anything',
      'upstream_error',
      'empty_stream',
      null,
      false,
    );
  }
  return out;
}

/** Ends the client's stream: an error event after a mid-stream failure, else the usage chunk if owed and [DONE]. */
export function finishStream(
  raw: ServerResponse,
  out: StreamOutcome,
  usageChunk: Record<string, unknown> | null,
): void {
  if (out.clientGone || raw.writableEnded) return;
  let tail = '';
  if (out.error)
    tail += `data: ${JSON.stringify({ error: { message: out.error.message, type: out.error.type, param: null, code: out.error.code } })}\n\n`;
  else {
    if (usageChunk) tail += `data: ${JSON.stringify(usageChunk)}\n\n`;
    tail += 'data: [DONE]\n\n';
  }
  raw.end(tail);
}
