import { argsObject, unpackCallId } from '../common.ts';
import type { CodecContext, HubEvent, HubStop, HubStreamEncoder, HubUsage, WireFormat } from '../hub.ts';
import { emptyUsage } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { encodeError } from './errors.ts';
import { blockReason, finishReason } from './stop.ts';
import { encodeUsage } from './usage.ts';

interface Call {
  id: string;
  name: string;
  args: string;
  signature?: string;
  signatureFormat?: WireFormat;
}

/**
 * Hub events as streamGenerateContent chunks, each a GenerateContentResponse: SSE `data:` frames ending in
 * CRLF CRLF as Google writes them, or with ctx.jsonArray the JSON array Google writes without `alt=sse`
 * (`[` chunk `,\r\n` chunk ... `]`, so the concatenation parses as one array). Text and thinking go out as
 * they come; Gemini streams function calls whole, so a call is held until its arguments are complete (when
 * another call or text starts and its arguments parse, or at the end). The last chunk carries the
 * finishReason and the usage; a blocked prompt ends with promptFeedback and no candidates.
 */
export function streamEncoder(ctx: CodecContext): HubStreamEncoder {
  let id = '';
  let model = ctx.model;
  let written = false;
  let failed = false;
  let ended = false;
  let thinkingLast = false;
  let usage: HubUsage | undefined;
  let stop: HubStop | undefined;
  let blocked: string | undefined;
  const calls = new Map<number, Call>(); // hub index -> call not yet sent
  let sentCalls = 0;

  function frame(payload: unknown): string {
    const json = JSON.stringify(payload);
    if (!ctx.jsonArray) return `data: ${json}\r\n\r\n`;
    const head = written ? ',\r\n' : '[';
    written = true;
    return head + json;
  }

  const meta = () => ({ modelVersion: model, ...(id ? { responseId: id } : {}) });

  const chunk = (parts: Obj[], extra: Obj = {}) =>
    frame({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], ...meta() });

  function callPart(c: Call): Obj {
    const unpacked = unpackCallId(c.id);
    const signature = c.signatureFormat === 'gemini' && c.signature ? c.signature : unpacked.signature;
    return {
      functionCall: { id: unpacked.id, name: c.name, args: argsObject(c.args) },
      ...(signature ? { thoughtSignature: signature } : {}),
    };
  }

  const complete = (c: Call) => {
    try {
      return typeof JSON.parse(c.args) === 'object';
    } catch {
      return false;
    }
  };

  /** The held calls as parts: all of them, or those whose arguments are complete. */
  function takeCalls(all: boolean): Obj[] {
    const parts: Obj[] = [];
    for (const [index, c] of calls) {
      if (!all && !complete(c)) continue;
      calls.delete(index);
      sentCalls++;
      parts.push(callPart(c));
    }
    return parts;
  }

  function flush(): string {
    const parts = takeCalls(false);
    return parts.length ? chunk(parts) : '';
  }

  function content(part: Obj, thinking: boolean): string {
    const out = flush() + chunk([part]);
    thinkingLast = thinking;
    return out;
  }

  return {
    push(ev: HubEvent): string {
      if (failed || ended) return '';
      switch (ev.type) {
        case 'start':
          if (!id) id = ev.id;
          if (ev.model) model = ev.model;
          return '';
        case 'text':
        case 'refusal':
          return ev.text ? content({ text: ev.text }, false) : '';
        case 'thinking':
          return ev.text ? content({ text: ev.text, thought: true }, true) : '';
        case 'thinking_signature':
          // Only Gemini can verify its signatures; others' are dropped.
          if (ev.format !== 'gemini' || !ev.signature) return '';
          return content(
            { text: '', ...(thinkingLast ? { thought: true } : {}), thoughtSignature: ev.signature },
            thinkingLast,
          );
        case 'opaque':
          return ev.format === 'gemini' && isObj(ev.value) ? content(ev.value, false) : '';
        case 'tool_call': {
          const out = flush();
          if (!calls.has(ev.index))
            calls.set(ev.index, {
              id: ev.id,
              name: ev.name,
              args: '',
              ...(ev.signature ? { signature: ev.signature, signatureFormat: ev.signatureFormat } : {}),
            });
          return out;
        }
        case 'tool_args': {
          const c = calls.get(ev.index);
          if (c) c.args += ev.delta;
          return '';
        }
        case 'usage':
          usage = ev.usage;
          return '';
        case 'finish':
          if (stop === undefined) {
            stop = ev.stop;
            blocked = ev.promptBlocked;
          }
          return '';
        case 'error': {
          failed = true;
          return frame(encodeError(ev.error, ctx.requestId).body);
        }
        default:
          // Redacted thinking has no Gemini form.
          return '';
      }
    },
    end(): string {
      if (ended) return '';
      ended = true;
      // The array's closing bracket, written after the last chunk (or `[]` when nothing was written).
      const close = () => (ctx.jsonArray ? (written ? ']' : '[]') : '');
      if (failed) return close();
      const usageMetadata = encodeUsage(usage ?? emptyUsage());
      if (blocked)
        return (
          frame({ promptFeedback: { blockReason: blockReason(blocked) }, usageMetadata, ...meta() }) + close()
        );
      const parts = takeCalls(true);
      const last = {
        candidates: [
          {
            ...(parts.length ? { content: { role: 'model', parts } } : {}),
            finishReason: finishReason(stop ?? (sentCalls > 0 ? 'tool_calls' : 'end')),
            index: 0,
          },
        ],
        usageMetadata,
        ...meta(),
      };
      const out = frame(last);
      return out + close();
    },
  };
}
