import { isObj, type Obj } from '../chat/check.ts';
import { newId, parseJsonOrNull } from '../common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../hub.ts';
import { streamErrorOf } from './errors.ts';
import { hubStop } from './status.ts';
import { usageWithSearches } from './usage.ts';

/** What the decoder remembers of one output item while it streams. */
interface ItemState {
  type: string;
  /** Hub tool-call index, for function and custom calls. */
  call?: number;
  /** Text sent so far per part: `c<i>` content, `s<i>` summary, `r<i>` reasoning text, `args`, `input`. */
  sent: Map<string, string>;
  /** Thinking text was sent for this reasoning item (a new summary part then starts a new paragraph). */
  thought: boolean;
  /** A custom call's closing `"}` was sent. */
  closed?: boolean;
  /** The summary part last opened (for servers whose summary deltas leave out summary_index). */
  summary?: number;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
/** Raw text as the inside of a JSON string (custom tool input streams into `{"input":"..."}`). */
const jsonInner = (s: string) => JSON.stringify(s).slice(1, -1);
const textsOf = (list: unknown) =>
  Array.isArray(list) ? list.map((p) => (isObj(p) ? str(p.text) : '')) : [];

/**
 * Responses stream events as hub events, one event at a time. Text, refusal, reasoning summary (or
 * reasoning_text) and argument deltas pass straight through; each .done event (and output_item.done) only
 * adds what its deltas left out, so servers that send no deltas, or lose some, still give the whole text.
 * A reasoning item's encrypted_content becomes a thinking_signature when the item is done (OpenAI sends the
 * final one only there); custom tool input is wrapped as it streams into the hub's `{"input": "..."}`
 * arguments. Items the hub has no part for (image_generation_call, web_search_call ...) travel whole as
 * opaque when done. response.completed / response.incomplete give usage and the stop; an `error` event or
 * response.failed gives the error.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let calls = 0;
  const items = new Map<string, ItemState>(); // by item id, and by `#<output_index>`

  const find = (ev: Obj): ItemState | undefined =>
    items.get(str(ev.item_id)) ?? items.get(`#${ev.output_index}`);

  /** Records a delta of a part; returns it. */
  function add(st: ItemState | undefined, key: string, delta: string): string {
    if (st) st.sent.set(key, (st.sent.get(key) ?? '') + delta);
    return delta;
  }

  /** What a part's whole text adds to what was sent of it ('' when nothing, or when it does not extend it). */
  function rest(st: ItemState, key: string, full: string): string {
    const sent = st.sent.get(key) ?? '';
    if (full.length <= sent.length || !full.startsWith(sent)) return '';
    st.sent.set(key, full);
    return full.slice(sent.length);
  }

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

  function itemAdded(ev: Obj, out: HubEvent[]): ItemState {
    const item = isObj(ev.item) ? ev.item : {};
    const st: ItemState = { type: str(item.type), sent: new Map(), thought: false };
    if (typeof item.id === 'string' && item.id) items.set(item.id, st);
    items.set(`#${ev.output_index}`, st);
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
      if (custom) {
        const input = add(st, 'input', str(item.input));
        out.push({ type: 'tool_args', index: st.call, delta: `{"input":"${jsonInner(input)}` });
      } else if (str(item.arguments))
        out.push({ type: 'tool_args', index: st.call, delta: add(st, 'args', str(item.arguments)) });
    }
    return st;
  }

  function text(kind: 'text' | 'refusal', delta: string, out: HubEvent[]) {
    if (delta) out.push({ type: kind, text: delta });
  }

  /**
   * Thinking text of one part (a delta, or with `whole` the part's whole text, of which only the unsent rest
   * goes out); the first text of a later part is a new paragraph.
   */
  function think(st: ItemState | undefined, key: string, t: string, out: HubEvent[], whole = false) {
    const fresh = !st?.sent.has(key);
    const delta = whole && st ? rest(st, key, t) : add(st, key, t);
    if (!delta) return;
    if (st?.thought && fresh) out.push({ type: 'thinking', text: '\n\n' });
    if (st) st.thought = true;
    out.push({ type: 'thinking', text: delta });
  }

  function args(st: ItemState, delta: string, out: HubEvent[]) {
    if (st.call === undefined || !delta) return;
    if (st.type === 'custom_tool_call') {
      if (st.closed) return;
      out.push({ type: 'tool_args', index: st.call, delta: jsonInner(add(st, 'input', delta)) });
    } else out.push({ type: 'tool_args', index: st.call, delta: add(st, 'args', delta) });
  }

  function closeCustom(st: ItemState, out: HubEvent[]) {
    if (st.call === undefined || st.closed) return;
    st.closed = true;
    out.push({ type: 'tool_args', index: st.call, delta: '"}' });
  }

  function itemDone(ev: Obj, out: HubEvent[]) {
    const item = isObj(ev.item) ? ev.item : {};
    const type = str(item.type);
    let st = find({ item_id: item.id, output_index: ev.output_index });
    if (!st && (type === 'function_call' || type === 'custom_tool_call'))
      // A done item never announced: open it now.
      st = itemAdded({ item: { ...item, arguments: '', input: '' }, output_index: ev.output_index }, out);
    st ??= { type, sent: new Map(), thought: false };
    switch (type) {
      case 'message':
        (Array.isArray(item.content) ? item.content : []).forEach((c, i) => {
          if (!isObj(c)) return;
          if (c.type === 'output_text') text('text', rest(st, `c${i}`, str(c.text)), out);
          else if (c.type === 'refusal') text('refusal', rest(st, `c${i}`, str(c.refusal)), out);
        });
        return;
      case 'reasoning': {
        const summary = textsOf(item.summary);
        const [list, prefix] = summary.some(Boolean) ? [summary, 's'] : [textsOf(item.content), 'r'];
        list.forEach((t, i) => {
          think(st, `${prefix}${i}`, t, out, true);
        });
        const enc = str(item.encrypted_content);
        if (enc)
          out.push({
            type: 'thinking_signature',
            signature: enc,
            format: 'responses',
            ...(typeof item.id === 'string' && item.id ? { itemId: item.id } : {}),
          });
        return;
      }
      case 'function_call':
        args(st, rest(st, 'args', str(item.arguments)), out);
        return;
      case 'custom_tool_call':
        args(st, rest(st, 'input', str(item.input)), out);
        closeCustom(st, out);
        return;
      default:
        if (type) out.push({ type: 'opaque', format: 'responses', value: item });
    }
  }

  function finish(resp: unknown, out: HubEvent[]) {
    finished = true;
    const r = isObj(resp) ? resp : {};
    start(r, out);
    if (isObj(r.usage)) out.push({ type: 'usage', usage: usageWithSearches(r.usage, r.output) });
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
      const st = find(ev);
      const part = `${ev.content_index ?? 0}`;
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
        case 'response.output_text.delta':
          text('text', add(st, `c${part}`, str(ev.delta)), out);
          break;
        case 'response.refusal.delta':
          text('refusal', add(st, `c${part}`, str(ev.delta)), out);
          break;
        case 'response.output_text.done':
          if (st) text('text', rest(st, `c${part}`, str(ev.text)), out);
          break;
        case 'response.refusal.done':
          if (st) text('refusal', rest(st, `c${part}`, str(ev.refusal)), out);
          break;
        case 'response.reasoning_summary_part.added':
          if (st && typeof ev.summary_index === 'number') st.summary = ev.summary_index;
          break;
        case 'response.reasoning_summary_text.delta':
          think(st, `s${ev.summary_index ?? st?.summary ?? 0}`, str(ev.delta), out);
          break;
        case 'response.reasoning_summary_text.done':
          think(st, `s${ev.summary_index ?? st?.summary ?? 0}`, str(ev.text), out, true);
          break;
        case 'response.reasoning_text.delta':
          think(st, `r${part}`, str(ev.delta), out);
          break;
        case 'response.reasoning_text.done':
          think(st, `r${part}`, str(ev.text), out, true);
          break;
        case 'response.function_call_arguments.delta':
        case 'response.custom_tool_call_input.delta':
          if (st) args(st, str(ev.delta), out);
          break;
        case 'response.function_call_arguments.done':
          if (st) args(st, rest(st, 'args', str(ev.arguments)), out);
          break;
        case 'response.custom_tool_call_input.done':
          if (st) {
            args(st, rest(st, 'input', str(ev.input)), out);
            closeCustom(st, out);
          }
          break;
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
