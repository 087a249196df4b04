import { capturedString, newId, parseJsonOrNull } from '../common.ts';
import {
  type CodecContext,
  emptyUsage,
  type HubEvent,
  type HubStreamDecoder,
  type HubUsage,
  type SseEvent,
} from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorOf } from './errors.ts';
import { hubStop } from './stop.ts';
import { decodeUsage } from './usage.ts';

/** An open content block of the upstream's stream. */
type Block =
  | { kind: 'text' | 'thinking' | 'other' }
  | { kind: 'tool'; index: number }
  // A block the hub carries whole (server_tool_use ...): its streamed input is gathered until it stops.
  | { kind: 'opaque'; block: Obj; json: string };

/** The stream's most frequent event: a text or thinking delta, whose field is named after its kind. */
const TEXT_DELTA =
  /^\{"type":"content_block_delta","index":\d+,"delta":\{"type":"(text|thinking)_delta","\1":("(?:[^"\\]|\\.)*")\}\}$/;

/**
 * A text or thinking delta's hub event, read from its string literal without parsing the whole event (the
 * block it belongs to does not change what it gives); undefined for any other event, which takes the full
 * parse. An empty delta gives no event, as with the full parse.
 */
export function textDeltaEvents(data: string): HubEvent[] | undefined {
  const m = TEXT_DELTA.exec(data);
  const text = capturedString(m, 2);
  if (text === undefined) return undefined;
  return text ? [{ type: m?.[1] === 'thinking' ? 'thinking' : 'text', text }] : [];
}

/**
 * Messages stream events as hub events, one event at a time: message_start gives start and the input
 * counts, text / thinking / signature / input_json deltas their hub events, tool_use blocks tool calls
 * (indexes counting tool calls only), message_delta the stop and the cumulative usage (newer API versions
 * repeat the input counts there; they replace the earlier ones when present), `error` an error event.
 * `ping` and unknown events are ignored.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let stopped = false;
  let failed = false;
  let calls = 0;
  let hasCalls = false;
  let usage: HubUsage = emptyUsage();
  let raw: Obj = {}; // the usage counts as last reported, Anthropic's names
  const blocks = new Map<number, Block>();

  function start(msg: Obj, out: HubEvent[]) {
    if (started) return;
    started = true;
    out.push({
      type: 'start',
      id: typeof msg.id === 'string' && msg.id ? msg.id : newId('msg_'),
      model: typeof msg.model === 'string' && msg.model ? msg.model : ctx.model,
    });
  }

  /** Merges reported counts (each a running total) and emits the usage so far. */
  function report(u: unknown, out: HubEvent[]) {
    if (!isObj(u)) return;
    const present = Object.fromEntries(Object.entries(u).filter(([, v]) => v !== null && v !== undefined));
    raw = { ...raw, ...present };
    usage = decodeUsage(raw);
    out.push({ type: 'usage', usage });
  }

  function blockStart(index: number, b: Obj, out: HubEvent[]) {
    switch (b.type) {
      case 'text':
        blocks.set(index, { kind: 'text' });
        if (typeof b.text === 'string' && b.text) out.push({ type: 'text', text: b.text });
        return;
      case 'thinking':
        blocks.set(index, { kind: 'thinking' });
        if (typeof b.thinking === 'string' && b.thinking) out.push({ type: 'thinking', text: b.thinking });
        if (typeof b.signature === 'string' && b.signature)
          out.push({ type: 'thinking_signature', signature: b.signature, format: 'anthropic' });
        return;
      case 'redacted_thinking':
        blocks.set(index, { kind: 'other' });
        if (typeof b.data === 'string') out.push({ type: 'redacted_thinking', data: b.data });
        return;
      case 'tool_use': {
        const hub = calls++;
        hasCalls = true;
        blocks.set(index, { kind: 'tool', index: hub });
        out.push({
          type: 'tool_call',
          index: hub,
          id: typeof b.id === 'string' && b.id ? b.id : newId('toolu_'),
          name: typeof b.name === 'string' ? b.name : '',
        });
        // Anthropic starts with input {} and streams it; a compatible server may give it whole here.
        if (isObj(b.input) && Object.keys(b.input).length)
          out.push({ type: 'tool_args', index: hub, delta: JSON.stringify(b.input) });
        return;
      }
      default:
        blocks.set(index, { kind: 'opaque', block: { ...b }, json: '' });
    }
  }

  function blockDelta(index: number, d: Obj, out: HubEvent[]) {
    const block = blocks.get(index);
    switch (d.type) {
      case 'text_delta':
        if (typeof d.text === 'string' && d.text) out.push({ type: 'text', text: d.text });
        return;
      case 'thinking_delta':
        if (typeof d.thinking === 'string' && d.thinking) out.push({ type: 'thinking', text: d.thinking });
        return;
      case 'signature_delta':
        if (typeof d.signature === 'string' && d.signature)
          out.push({ type: 'thinking_signature', signature: d.signature, format: 'anthropic' });
        return;
      case 'input_json_delta': {
        const json = typeof d.partial_json === 'string' ? d.partial_json : '';
        if (block?.kind === 'tool' && json) out.push({ type: 'tool_args', index: block.index, delta: json });
        else if (block?.kind === 'opaque') block.json += json;
        return;
      }
      default:
        return; // citations_delta and the like: nothing the hub carries
    }
  }

  function blockStop(index: number, out: HubEvent[]) {
    const block = blocks.get(index);
    blocks.delete(index);
    if (block?.kind !== 'opaque') return;
    const value = { ...block.block };
    if (block.json) {
      const input = parseJsonOrNull(block.json);
      if (isObj(input)) value.input = input;
    }
    out.push({ type: 'opaque', format: 'anthropic', value });
  }

  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed || stopped) return [];
      const data = ev.data.trim();
      const delta = started ? textDeltaEvents(data) : undefined;
      if (delta) return delta;
      const msg = parseJsonOrNull(data);
      if (!isObj(msg)) return [];
      const type = typeof msg.type === 'string' ? msg.type : ev.event;
      const out: HubEvent[] = [];
      switch (type) {
        case 'message_start': {
          const m = isObj(msg.message) ? msg.message : {};
          start(m, out);
          report(m.usage, out);
          break;
        }
        case 'content_block_start':
          start({}, out);
          if (typeof msg.index === 'number' && isObj(msg.content_block))
            blockStart(msg.index, msg.content_block, out);
          break;
        case 'content_block_delta':
          if (typeof msg.index === 'number' && isObj(msg.delta)) blockDelta(msg.index, msg.delta, out);
          break;
        case 'content_block_stop':
          if (typeof msg.index === 'number') blockStop(msg.index, out);
          break;
        case 'message_delta': {
          start({}, out);
          const d = isObj(msg.delta) ? msg.delta : {};
          if (!finished && d.stop_reason) {
            finished = true;
            const stop = hubStop(d.stop_reason, hasCalls);
            out.push({
              type: 'finish',
              stop,
              ...(stop === 'stop_sequence' && typeof d.stop_sequence === 'string'
                ? { stopSequence: d.stop_sequence }
                : {}),
            });
          }
          report(msg.usage, out);
          break;
        }
        case 'message_stop':
          stopped = true;
          if (!finished) {
            finished = true;
            out.push({ type: 'finish', stop: hubStop(null, hasCalls) });
          }
          break;
        case 'error': {
          failed = true;
          const e = isObj(msg.error) ? msg.error : { message: String(msg.error ?? 'upstream error') };
          out.push({ type: 'error', error: errorOf(e, 0) });
          break;
        }
        default:
          break; // ping and events added later
      }
      return out;
    },
    end(): HubEvent[] {
      if (failed || finished || !started) return [];
      return [
        {
          type: 'error',
          error: { status: 502, kind: 'server', message: 'the upstream stream ended before message_stop' },
        },
      ];
    },
  };
}
