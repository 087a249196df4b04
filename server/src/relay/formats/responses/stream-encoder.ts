import { isObj } from '../chat/check.ts';
import { clientCallId, customInput } from '../chat/response.ts';
import { newId, sseEvent } from '../common.ts';
import {
  type CodecContext,
  emptyUsage,
  type HubEvent,
  type HubStop,
  type HubStreamEncoder,
  type HubToolCall,
  type HubUsage,
} from '../hub.ts';
import { encodeError } from './errors.ts';
import { callItem, itemId, type OutputItem, reasoningItem } from './items.ts';
import { responseId, responseShell } from './response.ts';
import { responseStatus } from './status.ts';
import { encodeUsage } from './usage.ts';

interface MessageState {
  kind: 'message';
  index: number;
  id: string;
  content: Record<string, unknown>[];
  part: { type: 'output_text' | 'refusal'; text: string; contentIndex: number } | null;
}

interface ReasoningState {
  kind: 'reasoning';
  index: number;
  id: string;
  text: string;
  partOpen: boolean;
  signature?: string;
  /** A signature arrived: the block is over, more thinking opens a new item. */
  signed: boolean;
}

interface CallState {
  index: number;
  id: string;
  call: HubToolCall;
}

/**
 * Hub events as the Responses event stream, with increasing sequence_number: response.created and
 * response.in_progress, then each output item between output_item.added and output_item.done (message text
 * and refusals in content parts, thinking as a reasoning summary part, function-call arguments as deltas,
 * custom tool input in one delta when the call closes), and response.completed (or response.incomplete)
 * whose output repeats every item with the same ids. Tool calls stay open until something other than a tool
 * call arrives or the stream ends, so interleaved arguments of parallel calls land in their own items.
 * Calls of the request's custom tools (ctx.customTools) are custom_tool_call items even when the upstream
 * made them function calls with `{"input": ...}` arguments.
 * An error ends the stream with an `error` event and response.failed, as OpenAI does.
 */
export function streamEncoder(ctx: CodecContext): HubStreamEncoder {
  let seq = 0;
  let id = '';
  let model = ctx.model;
  let created = Math.floor(Date.now() / 1000);
  let opened = false;
  let done = false;
  let stop: HubStop | undefined;
  let promptBlocked: string | undefined;
  let usage: HubUsage | undefined;
  const output: OutputItem[] = [];
  let cur: MessageState | ReasoningState | null = null;
  const calls = new Map<number, CallState>();
  const customTools = new Set(ctx.customTools ?? []);

  const emit = (type: string, payload: Record<string, unknown>) =>
    sseEvent(type, { type, sequence_number: seq++, ...payload });
  const shell = () => responseShell(id, model, created);

  function open(): string {
    if (opened) return '';
    opened = true;
    id = responseId(id);
    return (
      emit('response.created', { response: shell() }) + emit('response.in_progress', { response: shell() })
    );
  }

  function addItem(item: OutputItem): { s: string; index: number } {
    const index = output.length;
    output.push(item);
    return { s: emit('response.output_item.added', { output_index: index, item }), index };
  }

  function doneItem(index: number, item: OutputItem): string {
    output[index] = item;
    return emit('response.output_item.done', { output_index: index, item });
  }

  function closePart(m: MessageState): string {
    const p = m.part;
    if (!p) return '';
    m.part = null;
    const at = { item_id: m.id, output_index: m.index, content_index: p.contentIndex };
    const part =
      p.type === 'output_text'
        ? { type: 'output_text', annotations: [], logprobs: [], text: p.text }
        : { type: 'refusal', refusal: p.text };
    m.content[p.contentIndex] = part;
    return (
      (p.type === 'output_text'
        ? emit('response.output_text.done', { ...at, text: p.text, logprobs: [] })
        : emit('response.refusal.done', { ...at, refusal: p.text })) +
      emit('response.content_part.done', { ...at, part })
    );
  }

  /** Closes the open message or reasoning item. */
  function closeCur(status = 'completed'): string {
    const c = cur;
    if (!c) return '';
    cur = null;
    if (c.kind === 'message') {
      const s = closePart(c);
      return (
        s + doneItem(c.index, { id: c.id, type: 'message', status, role: 'assistant', content: c.content })
      );
    }
    let s = '';
    if (c.partOpen) {
      const at = { item_id: c.id, output_index: c.index, summary_index: 0 };
      s +=
        emit('response.reasoning_summary_text.done', { ...at, text: c.text }) +
        emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: c.text } });
    }
    const item = reasoningItem(
      { text: c.text, signature: c.signature, signatureFormat: c.signature ? 'responses' : undefined },
      c.id,
    );
    return s + doneItem(c.index, item);
  }

  function closeCalls(): string {
    let s = '';
    for (const c of [...calls.values()].sort((a, b) => a.index - b.index)) {
      const at = { item_id: c.id, output_index: c.index };
      if (c.call.custom) {
        const input = customInput(c.call.args);
        if (input) s += emit('response.custom_tool_call_input.delta', { ...at, delta: input });
        s += emit('response.custom_tool_call_input.done', { ...at, input });
      } else
        s += emit('response.function_call_arguments.done', {
          ...at,
          name: c.call.name,
          arguments: c.call.args || '{}',
        });
      s += doneItem(c.index, callItem(c.call, c.id));
    }
    calls.clear();
    return s;
  }

  /** The message item to write into, opened when the current item is something else. */
  function message(partType: 'output_text' | 'refusal'): { s: string; m: MessageState } {
    let s = open() + closeCalls();
    if (cur?.kind !== 'message') {
      s += closeCur();
      const mid = itemId.message();
      const added = addItem({
        id: mid,
        type: 'message',
        status: 'in_progress',
        role: 'assistant',
        content: [],
      });
      s += added.s;
      cur = { kind: 'message', index: added.index, id: mid, content: [], part: null };
    }
    const m = cur;
    if (m.part?.type !== partType) {
      s += closePart(m);
      const contentIndex = m.content.length;
      const part =
        partType === 'output_text'
          ? { type: 'output_text', annotations: [], logprobs: [], text: '' }
          : { type: 'refusal', refusal: '' };
      m.content.push(part);
      m.part = { type: partType, text: '', contentIndex };
      s += emit('response.content_part.added', {
        item_id: m.id,
        output_index: m.index,
        content_index: contentIndex,
        part,
      });
    }
    return { s, m };
  }

  /** The reasoning item to write into: a new one after anything else or after a signature. */
  function reasoning(): { s: string; r: ReasoningState } {
    let s = open() + closeCalls();
    if (cur?.kind !== 'reasoning' || cur.signed) {
      s += closeCur();
      const rid = itemId.reasoning();
      const added = addItem({ id: rid, type: 'reasoning', summary: [] });
      s += added.s;
      cur = { kind: 'reasoning', index: added.index, id: rid, text: '', partOpen: false, signed: false };
    }
    return { s, r: cur };
  }

  function delta(ev: Extract<HubEvent, { type: 'text' | 'refusal' }>): string {
    if (!ev.text) return '';
    const { s, m } = message(ev.type === 'text' ? 'output_text' : 'refusal');
    m.part!.text += ev.text;
    const at = { item_id: m.id, output_index: m.index, content_index: m.part!.contentIndex };
    return (
      s +
      (ev.type === 'text'
        ? emit('response.output_text.delta', { ...at, delta: ev.text, logprobs: [] })
        : emit('response.refusal.delta', { ...at, delta: ev.text }))
    );
  }

  function toolCall(ev: Extract<HubEvent, { type: 'tool_call' }>): string {
    let s = open() + closeCur();
    const old = calls.get(ev.index);
    if (old) s += closeCalls(); // a reused index starts a new call
    const custom = ev.custom || customTools.has(ev.name);
    const call: HubToolCall = {
      type: 'tool_call',
      id: ev.id || newId('call_'),
      name: ev.name,
      args: '',
      ...(custom ? { custom: true } : {}),
      ...(ev.signature ? { signature: ev.signature, signatureFormat: ev.signatureFormat } : {}),
    };
    const cid = custom ? itemId.custom() : itemId.call();
    const call_id = clientCallId(call);
    const added = addItem(
      custom
        ? { id: cid, type: 'custom_tool_call', status: 'in_progress', call_id, name: ev.name, input: '' }
        : { id: cid, type: 'function_call', status: 'in_progress', call_id, name: ev.name, arguments: '' },
    );
    calls.set(ev.index, { index: added.index, id: cid, call });
    return s + added.s;
  }

  function fail(ev: Extract<HubEvent, { type: 'error' }>): string {
    let s = open();
    done = true;
    const e = (encodeError(ev.error, ctx.requestId).body as { error: Record<string, unknown> }).error;
    s += emit('error', { code: e.code, message: e.message, param: e.param, error: e });
    return (
      s +
      emit('response.failed', {
        response: {
          ...shell(),
          status: 'failed',
          error: { code: e.code ?? e.type, message: e.message },
          output,
          usage: usage ? encodeUsage(usage) : null,
        },
      })
    );
  }

  return {
    push(ev: HubEvent): string {
      if (done) return '';
      switch (ev.type) {
        case 'start':
          if (!opened) {
            id = ev.id;
            model = ev.model || model;
            if (ev.created) created = ev.created;
          }
          return open();
        case 'text':
        case 'refusal':
          return delta(ev);
        case 'thinking': {
          if (!ev.text) return '';
          const { s, r } = reasoning();
          let out = s;
          const at = { item_id: r.id, output_index: r.index, summary_index: 0 };
          if (!r.partOpen) {
            r.partOpen = true;
            out += emit('response.reasoning_summary_part.added', {
              ...at,
              part: { type: 'summary_text', text: '' },
            });
          }
          r.text += ev.text;
          return out + emit('response.reasoning_summary_text.delta', { ...at, delta: ev.text });
        }
        case 'thinking_signature': {
          if (ev.format !== 'responses') {
            // Another format's proof: not sent, but it ends the block.
            if (cur?.kind === 'reasoning') cur.signed = true;
            return '';
          }
          if (cur?.kind === 'reasoning' && !cur.signed) {
            cur.signature = ev.signature;
            cur.signed = true;
            return '';
          }
          // Encrypted reasoning without summary text: an item of its own.
          const { s, r } = reasoning();
          r.signature = ev.signature;
          r.signed = true;
          return s;
        }
        case 'tool_call':
          return toolCall(ev);
        case 'tool_args': {
          const c = calls.get(ev.index);
          if (!c || !ev.delta) return '';
          c.call.args += ev.delta;
          if (c.call.custom) return ''; // sent whole when the call closes: the hub args are JSON around it
          return emit('response.function_call_arguments.delta', {
            item_id: c.id,
            output_index: c.index,
            delta: ev.delta,
          });
        }
        case 'opaque': {
          if (ev.format !== 'responses' || !isObj(ev.value) || typeof ev.value.type !== 'string') return '';
          const s = open() + closeCalls() + closeCur();
          const item = { ...ev.value, id: typeof ev.value.id === 'string' ? ev.value.id : newId('item_') };
          const added = addItem(item as OutputItem);
          return s + added.s + doneItem(added.index, item as OutputItem);
        }
        case 'usage':
          usage = ev.usage;
          return '';
        case 'finish':
          stop = ev.stop;
          promptBlocked = ev.promptBlocked;
          return '';
        case 'error':
          return fail(ev);
        default:
          // Other formats' opaque parts have no place in a Response (redacted thinking comes sealed, as a signature).
          return '';
      }
    },
    end(): string {
      if (done) return '';
      done = true;
      const { status, incomplete_details } = responseStatus(stop ?? 'end', promptBlocked);
      const s = open() + closeCalls() + closeCur(status);
      const response = {
        ...shell(),
        status,
        incomplete_details,
        output,
        usage: encodeUsage(usage ?? emptyUsage()),
      };
      return s + emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    },
  };
}
