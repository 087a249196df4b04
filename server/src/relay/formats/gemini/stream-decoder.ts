import { newId, parseJsonOrNull } from '../common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, HubUsage, SseEvent } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorOf } from './errors.ts';
import { PartialArgsWriter } from './partial-args.ts';
import { answerCreated, answerId, answerModel, answerPart, firstCandidate, partsOf } from './response.ts';
import { hubStop } from './stop.ts';
import { decodeUsage, hasCounts } from './usage.ts';

/**
 * streamGenerateContent chunks (each a whole GenerateContentResponse) as hub events, as they arrive. Usage
 * in every chunk is the running total: a `usage` event goes out whenever it changes (Vertex's intermediate
 * chunks carry only trafficType and are skipped). Function calls come whole (Gemini), or on Vertex as a
 * call opened by `{name, willContinue}`, grown by `partialArgs` fragments and closed by a functionCall with
 * no willContinue: those become tool_args deltas. The finishReason chunk's parts are read before the finish.
 * A chunk holding an array (the JSON-array framing) is read element by element.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let calls = 0;
  let lastUsage = '';
  let open: { index: number; args: PartialArgsWriter } | null = null;

  function closeCall(out: HubEvent[]) {
    if (!open) return;
    out.push({ type: 'tool_args', index: open.index, delta: open.args.end() });
    open = null;
  }

  /** A Vertex streamed function call fragment; false when the part is a whole call. */
  function streamedCall(p: Obj, out: HubEvent[]): boolean {
    const fc = p.functionCall as Obj;
    const partial = Array.isArray(fc.partialArgs) ? fc.partialArgs : undefined;
    const name = typeof fc.name === 'string' && fc.name ? fc.name : undefined;
    if (!open && !(name && fc.willContinue === true && !isObj(fc.args))) return false;
    if (name) {
      closeCall(out);
      const index = calls++;
      const sig =
        typeof p.thoughtSignature === 'string' && p.thoughtSignature ? p.thoughtSignature : undefined;
      out.push({
        type: 'tool_call',
        index,
        id: typeof fc.id === 'string' && fc.id ? fc.id : newId('call_'),
        name,
        ...(sig ? { signature: sig, signatureFormat: 'gemini' as const } : {}),
      });
      open = { index, args: new PartialArgsWriter() };
    }
    const cur = open as { index: number; args: PartialArgsWriter } | null;
    if (!cur) return true;
    for (const arg of partial ?? []) {
      const delta = cur.args.push(arg);
      if (delta) out.push({ type: 'tool_args', index: cur.index, delta });
    }
    if (fc.willContinue !== true) closeCall(out);
    return true;
  }

  function part(p: unknown, out: HubEvent[]) {
    if (isObj(p) && isObj(p.functionCall) && streamedCall(p, out)) return;
    for (const h of answerPart(p)) {
      switch (h.type) {
        case 'text':
          out.push({ type: 'text', text: h.text });
          break;
        case 'thinking':
          if (h.text) out.push({ type: 'thinking', text: h.text });
          if (h.signature) out.push({ type: 'thinking_signature', signature: h.signature, format: 'gemini' });
          break;
        case 'tool_call': {
          closeCall(out);
          const index = calls++;
          const { type: _, args, ...call } = h;
          out.push({ type: 'tool_call', index, ...call });
          out.push({ type: 'tool_args', index, delta: args });
          break;
        }
        default:
          // Generated media and code execution have no hub event: the part travels whole (with its
          // signature) as a Gemini opaque value.
          out.push({ type: 'opaque', format: 'gemini', value: p });
          return;
      }
    }
  }

  function chunk(c: Obj, out: HubEvent[]) {
    if (failed) return;
    if (c.error !== undefined && c.error !== null && !Array.isArray(c.candidates)) {
      failed = true;
      out.push({ type: 'error', error: errorOf(isObj(c.error) ? c.error : { message: String(c.error) }, 0) });
      return;
    }
    if (!started) {
      started = true;
      const created = answerCreated(c);
      out.push({
        type: 'start',
        id: answerId(c),
        model: answerModel(c, ctx),
        ...(created ? { created } : {}),
      });
    }
    const candidate = firstCandidate(c);
    for (const p of partsOf(candidate)) part(p, out);
    if (hasCounts(c.usageMetadata)) {
      const usage: HubUsage = decodeUsage(c.usageMetadata);
      const key = JSON.stringify(usage);
      if (key !== lastUsage) {
        lastUsage = key;
        out.push({ type: 'usage', usage });
      }
    }
    if (finished) return;
    const feedback = isObj(c.promptFeedback) ? c.promptFeedback : {};
    if (!candidate && typeof feedback.blockReason === 'string') {
      finished = true;
      out.push({ type: 'finish', stop: 'content_filter', promptBlocked: feedback.blockReason });
    } else if (candidate && typeof candidate.finishReason === 'string' && candidate.finishReason) {
      closeCall(out);
      finished = true;
      out.push({ type: 'finish', stop: hubStop(candidate.finishReason, calls > 0) });
    }
  }

  return {
    push(ev: SseEvent): HubEvent[] {
      const data = ev.data.trim();
      if (failed || !data) return [];
      const parsed = parseJsonOrNull(data);
      const out: HubEvent[] = [];
      for (const c of Array.isArray(parsed) ? parsed : [parsed]) if (isObj(c)) chunk(c, out);
      return out;
    },
    end(): HubEvent[] {
      if (!started || finished || failed) return [];
      return [
        {
          type: 'error',
          error: { status: 502, kind: 'server', message: 'the upstream stream ended before it finished' },
        },
      ];
    },
  };
}
