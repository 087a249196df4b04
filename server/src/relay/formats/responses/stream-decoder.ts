import { isObj, type Obj } from '../chat/check.ts';
import { newId, parseJsonOrNull } from '../common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../hub.ts';
import { streamErrorOf } from './errors.ts';
import { reasoningText } from './items.ts';
import { hubStop } from './status.ts';
import { decodeUsage } from './usage.ts';

/** What the decoder remembers of one output item while it streams. */
interface ItemState {
  type: string;
  /** Hub tool-call index, for function and custom calls. */
  call?: number;
  /** Deltas were seen (then the .done events repeat what was already sent). */
  streamed: boolean;
  /** Thinking text was sent for this reasoning item. */
  thought: boolean;
  /** A custom call's closing `"}` was sent. */
  closed?: boolean;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** Raw text as the inside of a JSON string (custom tool input streams into `{"input":"..."}`). */
const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * Responses stream events as hub events, one event at a time. Text, refusal, reasoning summary (or
 * reasoning_text) and argument deltas pass straight through; a reasoning item's encrypted_content becomes a
 * thinking_signature when the item is done (OpenAI only sends the final one there); custom tool input is
 * wrapped as it streams into the hub's `{"input": "..."}` arguments. Items the hub has no part for
 * (image_generation_call, web_search_call ...) travel whole as opaque when done. response.completed /
 * response.incomplete give usage and the stop; an `error` event or response.failed gives the error.
 * Servers that send only .done events (no deltas) are read from those.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let calls = 0;
  const items = new Map<string, ItemState>(); // by item id, and by `#<output_index>`

  const find = (ev: Obj): ItemState | undefined =>
    items.get(str(ev.item_id)) ?? items.get(`#${ev.output_index}`);

  function start(resp: unknown, out: HubEvent[]) {
    if (started) return;
    started = true;
    const r = isObj(resp) ? resp : {};
    out.push({
      type: 'start',
      id: str(r.id) || newId('resp_'),
      model: str(r.model) || ctx.model,
      ...(typeof r.created_at === 'number' && r.created_at > 0 ? { created: Math.floor(r.created_at) } : {}),
    });
  }

  function itemAdded(ev: Obj, out: HubEvent[]) {
    const item = isObj(ev.item) ? ev.item : {};
    const st: ItemState = { type: str(item.type), streamed: false, thought: false };
    if (st.type === 'function_call' || st.type === 'custom_tool_call') {
      st.call = calls++;
      const custom = st.type === 'custom_tool_call';
      out.push({
        type: 'tool_call',
        index: st.call,
        id: str(item.call_id) || newId('call_'),
        name: str(item.name),
        ...(custom ? { custom: true } : {}),
      });
      if (custom)
        out.push({ type: 'tool_args', index: st.call, delta: `{"input":"${jsonInner(str(item.input))}` });
      else if (str(item.arguments)) {
        st.streamed = true;
        out.push({ type: 'tool_args', index: st.call, delta: str(item.arguments) });
      }
      if (custom && str(item.input)) st.streamed = true;
    }
    if (typeof item.id === 'string' && item.id) items.set(item.id, st);
    items.set(`#${ev.output_index}`, st);
  }

  function closeCustom(st: ItemState, out: HubEvent[]) {
    if (st.call === undefined || st.closed) return;
    st.closed = true;
    out.push({ type: 'tool_args', index: st.call, delta: '"}' });
  }

  function itemDone(ev: Obj, out: HubEvent[]) {
    const item = isObj(ev.item) ? ev.item : {};
    const st = find({ item_id: item.id, output_index: ev.output_index });
    const type = str(item.type);
    switch (type) {
      case 'message':
        if (st?.streamed) return;
        for (const c of Array.isArray(item.content) ? item.content : []) {
          if (!isObj(c)) continue;
          if (c.type === 'output_text' && str(c.text)) out.push({ type: 'text', text: str(c.text) });
          else if (c.type === 'refusal' && str(c.refusal))
            out.push({ type: 'refusal', text: str(c.refusal) });
        }
        return;
      case 'reasoning': {
        if (!st?.thought) {
          const text = reasoningText(item);
          if (text) out.push({ type: 'thinking', text });
        }
        const enc = str(item.encrypted_content);
        if (enc) out.push({ type: 'thinking_signature', signature: enc, format: 'responses' });
        return;
      }
      case 'function_call':
        if (st?.call === undefined) {
          // A done item never announced: open it now.
          itemAdded({ item: { ...item, arguments: '' }, output_index: ev.output_index }, out);
          return itemDone(ev, out);
        }
        if (!st.streamed && str(item.arguments)) {
          st.streamed = true;
          out.push({ type: 'tool_args', index: st.call, delta: str(item.arguments) });
        }
        return;
      case 'custom_tool_call':
        if (st?.call === undefined) {
          itemAdded({ item: { ...item, input: '' }, output_index: ev.output_index }, out);
          return itemDone(ev, out);
        }
        if (!st.streamed && !st.closed && str(item.input))
          out.push({ type: 'tool_args', index: st.call, delta: jsonInner(str(item.input)) });
        closeCustom(st, out);
        return;
      default:
        if (type) out.push({ type: 'opaque', format: 'responses', value: item });
    }
  }

  function reasoningPart(ev: Obj, out: HubEvent[]) {
    const st = find(ev);
    if (!st) return;
    // Summary parts are separate paragraphs in one hub thinking block.
    if (st.thought) out.push({ type: 'thinking', text: '\n\n' });
  }

  function thinking(ev: Obj, text: string, out: HubEvent[]) {
    if (!text) return;
    const st = find(ev);
    if (st) st.thought = true;
    out.push({ type: 'thinking', text });
  }

  function finish(resp: unknown, out: HubEvent[]) {
    if (finished) return;
    finished = true;
    const r = isObj(resp) ? resp : {};
    start(r, out);
    if (isObj(r.usage)) out.push({ type: 'usage', usage: decodeUsage(r.usage) });
    out.push({ type: 'finish', stop: hubStop(r.status, r.incomplete_details, calls > 0) });
  }

  function fail(e: unknown, out: HubEvent[]) {
    failed = true;
    const err = isObj(e) ? e : { message: typeof e === 'string' ? e : 'the upstream response failed' };
    out.push({ type: 'error', error: streamErrorOf(err) });
  }

  return {
    push(sse: SseEvent): HubEvent[] {
      if (failed || finished) return [];
      const data = sse.data.trim();
      if (!data || data === '[DONE]') return [];
      const ev = parseJsonOrNull(data);
      if (!isObj(ev)) return [];
      const type = str(ev.type) || str(sse.event);
      const out: HubEvent[] = [];
      switch (type) {
        case 'response.created':
        case 'response.in_progress':
        case 'response.queued':
          start(ev.response, out);
          break;
        case 'response.output_item.added':
          start(undefined, out);
          itemAdded(ev, out);
          break;
        case 'response.output_item.done':
          start(undefined, out);
          itemDone(ev, out);
          break;
        case 'response.output_text.delta': {
          const st = find(ev);
          if (st) st.streamed = true;
          if (str(ev.delta)) out.push({ type: 'text', text: str(ev.delta) });
          break;
        }
        case 'response.refusal.delta': {
          const st = find(ev);
          if (st) st.streamed = true;
          if (str(ev.delta)) out.push({ type: 'refusal', text: str(ev.delta) });
          break;
        }
        case 'response.output_text.done':
        case 'response.refusal.done': {
          // Servers that send no deltas: the whole text once (the item's done then has nothing new).
          const st = find(ev);
          if (!st || st.streamed) break;
          st.streamed = true;
          const text = type === 'response.output_text.done' ? str(ev.text) : str(ev.refusal);
          if (text) out.push({ type: type === 'response.output_text.done' ? 'text' : 'refusal', text });
          break;
        }
        case 'response.reasoning_summary_part.added':
          reasoningPart(ev, out);
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          thinking(ev, str(ev.delta), out);
          break;
        case 'response.function_call_arguments.delta': {
          const st = find(ev);
          if (st?.call === undefined || !str(ev.delta)) break;
          st.streamed = true;
          out.push({ type: 'tool_args', index: st.call, delta: str(ev.delta) });
          break;
        }
        case 'response.function_call_arguments.done': {
          const st = find(ev);
          if (st?.call === undefined || st.streamed || !str(ev.arguments)) break;
          st.streamed = true;
          out.push({ type: 'tool_args', index: st.call, delta: str(ev.arguments) });
          break;
        }
        case 'response.custom_tool_call_input.delta': {
          const st = find(ev);
          if (st?.call === undefined || st.closed || !str(ev.delta)) break;
          st.streamed = true;
          out.push({ type: 'tool_args', index: st.call, delta: jsonInner(str(ev.delta)) });
          break;
        }
        case 'response.custom_tool_call_input.done': {
          const st = find(ev);
          if (st?.call === undefined || st.closed) break;
          if (!st.streamed && str(ev.input))
            out.push({ type: 'tool_args', index: st.call, delta: jsonInner(str(ev.input)) });
          st.streamed = true;
          closeCustom(st, out);
          break;
        }
        case 'response.completed':
        case 'response.incomplete':
          finish(ev.response, out);
          break;
        case 'response.failed': {
          start(ev.response, out);
          const r = isObj(ev.response) ? ev.response : {};
          fail(r.error ?? 'the upstream response failed', out);
          break;
        }
        case 'error':
          fail(isObj(ev.error) ? ev.error : ev, out);
          break;
        default:
          break; // annotations, image_generation_call progress, web search progress ...
      }
      return out;
    },
    end(): HubEvent[] {
      if (!started || finished || failed) return [];
      return [
        {
          type: 'error',
          error: {
            status: 502,
            kind: 'server',
            message: 'the upstream stream ended before response.completed',
          },
        },
      ];
    },
  };
}
