import { clientCallId } from '../chat/response.ts';
import { parseJsonOrNull, sseEvent } from '../common.ts';
import {
  type CodecContext,
  emptyUsage,
  type HubEvent,
  type HubStop,
  type HubStreamEncoder,
  type HubUsage,
} from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorBody } from './errors.ts';
import { messageId } from './response.ts';
import { stopReason } from './stop.ts';
import { streamUsageJson } from './usage.ts';

/** A tool call of the hub stream: its arguments so far, and how much of them its block has sent. */
interface Call {
  id: string;
  name: string;
  args: string;
  sent: number;
  /** Its block is open (its index) or was closed (true). */
  block?: number;
  closed?: boolean;
}

/**
 * Hub events as Messages stream events, in Anthropic's order: message_start (held back until the first
 * content so that input counts reported right after the start are in it; zeros when none are known yet),
 * then per block content_block_start / content_block_delta / content_block_stop, then message_delta
 * (stop_reason, stop_sequence, the usage totals) and message_stop, both from end() because usage may come
 * after the finish.
 *
 * A new block opens whenever the kind changes. Anthropic blocks cannot interleave, while hub tool calls can
 * (parallel calls whose arguments arrive interleaved, from OpenAI or Gemini upstreams): the open tool block
 * streams its arguments live; a call opened meanwhile waits with its arguments buffered and gets its block
 * once the open call's arguments are complete JSON (or at the end), so every block carries valid JSON.
 *
 * Thinking goes out with Anthropic signatures only (another format's signature is no Anthropic signature;
 * the block keeps the empty signature of its start). After an error, an `error` event and nothing more.
 */
export function streamEncoder(ctx: CodecContext): HubStreamEncoder {
  let id = '';
  let model = ctx.model;
  let started = false;
  let failed = false;
  let ended = false;
  let stop: HubStop | undefined;
  let stopSequence: string | undefined;
  let promptBlocked: string | undefined;
  let usage: HubUsage | undefined;
  let nextBlock = 0;
  let hadCalls = false;
  /** The open block: its index, kind, and for a tool block the call; a signed thinking block takes no text. */
  let open: { index: number; kind: 'text' | 'thinking' | 'tool'; call?: Call; signed?: boolean } | undefined;
  const calls = new Map<number, Call>();
  const waiting: Call[] = [];

  const ev = (payload: Obj) => sseEvent(String(payload.type), payload);

  // message_start, a text block's start and message_delta are written directly, as the text deltas are: the
  // same bytes as sseEvent of their objects (a test compares them), without building the objects.
  function begin(): string {
    if (started) return '';
    started = true;
    return `event: message_start\ndata: {"type":"message_start","message":{"id":${JSON.stringify(messageId(id))},"type":"message","role":"assistant","model":${JSON.stringify(model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":${streamUsageJson(usage ?? emptyUsage())}}}\n\n`;
  }

  function close(): string {
    if (!open) return '';
    const index = open.index;
    if (open.call) open.call.closed = true;
    open = undefined;
    return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
  }

  /** Opens a block: `block` is its content_block, or for a text block nothing. */
  function openBlock(kind: 'text' | 'thinking' | 'tool', block?: Obj, call?: Call): string {
    const out = close();
    const index = nextBlock++;
    open = { index, kind, call };
    if (call) call.block = index;
    if (!block)
      return `${out}event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`;
    return out + ev({ type: 'content_block_start', index, content_block: block });
  }

  /** The unsent arguments of the open tool call. */
  function flushArgs(): string {
    const call = open?.call;
    if (!call || call.sent >= call.args.length) return '';
    const partial = call.args.slice(call.sent);
    call.sent = call.args.length;
    return ev({
      type: 'content_block_delta',
      index: call.block,
      delta: { type: 'input_json_delta', partial_json: partial },
    });
  }

  function openCall(call: Call): string {
    hadCalls = true;
    return (
      openBlock('tool', { type: 'tool_use', id: call.id, name: call.name, input: {} }, call) + flushArgs()
    );
  }

  const complete = (call: Call) => isObj(parseJsonOrNull(call.args));

  /** While the open call is complete, close it and give the next waiting call its block. */
  function advance(): string {
    let out = '';
    while (waiting.length && (!open?.call || complete(open.call))) out += openCall(waiting.shift() as Call);
    return out;
  }

  /** Closes the open block and every waiting call in order (before other content, or at the end). */
  function settleCalls(): string {
    let out = '';
    while (waiting.length) out += openCall(waiting.shift() as Call);
    return out + close();
  }

  function text(kind: 'text' | 'thinking', value: string): string {
    if (!value) return '';
    let out = begin();
    if (open?.kind !== kind || open.signed) {
      out += open?.kind === 'tool' ? settleCalls() : close();
      out += openBlock(kind, kind === 'text' ? undefined : { type: 'thinking', thinking: '', signature: '' });
    }
    // The stream's most frequent event, written directly: the same bytes as sseEvent of its object.
    const field = kind === 'text' ? 'text' : 'thinking';
    return `${out}event: content_block_delta\ndata: {"type":"content_block_delta","index":${open?.index},"delta":{"type":"${kind}_delta","${field}":${JSON.stringify(value)}}}\n\n`;
  }

  function whole(block: Obj): string {
    const out = begin() + (open?.kind === 'tool' ? settleCalls() : close());
    const index = nextBlock++;
    return (
      out +
      ev({ type: 'content_block_start', index, content_block: block }) +
      ev({ type: 'content_block_stop', index })
    );
  }

  return {
    push(e: HubEvent): string {
      if (failed || ended) return '';
      switch (e.type) {
        case 'start':
          if (!started) {
            id = e.id;
            model = e.model || model;
          }
          return '';
        case 'usage':
          usage = e.usage;
          return '';
        case 'text':
        case 'refusal':
          return text('text', e.text);
        case 'thinking':
          return text('thinking', e.text);
        case 'thinking_signature': {
          if (e.format !== 'anthropic' || !e.signature) return '';
          let out = begin();
          if (open?.kind !== 'thinking' || open.signed) {
            out += open?.kind === 'tool' ? settleCalls() : close();
            out += openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          }
          const block = open as NonNullable<typeof open>;
          block.signed = true;
          const delta = { type: 'signature_delta', signature: e.signature };
          return out + ev({ type: 'content_block_delta', index: block.index, delta });
        }
        case 'redacted_thinking':
          return whole({ type: 'redacted_thinking', data: e.data });
        case 'opaque':
          return e.format === 'anthropic' && isObj(e.value) ? whole(e.value) : '';
        case 'tool_call': {
          if (calls.has(e.index)) return '';
          const call: Call = { id: clientCallId(e), name: e.name, args: '', sent: 0 };
          calls.set(e.index, call);
          const out = begin();
          if (open?.call && !complete(open.call)) {
            waiting.push(call);
            return out;
          }
          return out + settleCalls() + openCall(call);
        }
        case 'tool_args': {
          const call = calls.get(e.index);
          if (!call || !e.delta || call.closed) return '';
          call.args += e.delta;
          if (open?.call === call) return flushArgs() + advance();
          return advance();
        }
        case 'finish':
          stop = e.stop;
          stopSequence = e.stopSequence;
          promptBlocked = e.promptBlocked;
          return '';
        case 'error':
          failed = true;
          return ev(errorBody(e.error, ctx.requestId));
        default:
          return '';
      }
    },
    end(): string {
      if (failed || ended) return '';
      ended = true;
      const out = begin() + settleCalls();
      const reason = JSON.stringify(stopReason(stop ?? 'end', hadCalls, promptBlocked));
      const sequence = JSON.stringify(stop === 'stop_sequence' ? (stopSequence ?? null) : null);
      return `${out}event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":${reason},"stop_sequence":${sequence}},"usage":${streamUsageJson(usage ?? emptyUsage())}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`;
    },
  };
}
