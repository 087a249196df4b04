import { isObj, type Obj } from '../../formats/chat/check.ts';
import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { finishError } from './errors.ts';
import { decodeUsage, hubStop } from './usage.ts';

/**
 * Cohere's Chat v2 stream events as hub events: message-start, content-start/-delta (text or thinking),
 * tool-plan-delta (thinking), tool-call-start/-delta/-end, message-end with finish_reason and usage. Each
 * event names its type in the data too; citation and debug events carry nothing the hub keeps.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let calls = 0;
  const slots = new Map<number, number>(); // Cohere's tool-call index -> hub index

  const start = (id: unknown, out: HubEvent[]) => {
    if (started) return;
    started = true;
    out.push({ type: 'start', id: typeof id === 'string' && id ? id : newId('chatcmpl-'), model: ctx.model });
  };
  const messageOf = (data: Obj): Obj => {
    const delta = isObj(data.delta) ? data.delta : {};
    return isObj(delta.message) ? delta.message : {};
  };
  const args = (tc: Obj) => {
    const fn = isObj(tc.function) ? tc.function : {};
    return typeof fn.arguments === 'string' ? fn.arguments : '';
  };

  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed || finished) return [];
      const data = parseJsonOrNull(ev.data.trim());
      if (!isObj(data)) return []; // [DONE] or a keep-alive
      const type = typeof data.type === 'string' ? data.type : ev.event;
      const out: HubEvent[] = [];
      const message = messageOf(data);
      switch (type) {
        case 'message-start':
          start(data.id, out);
          break;
        case 'content-start':
        case 'content-delta': {
          start(undefined, out);
          const c = isObj(message.content) ? message.content : {};
          if (typeof c.thinking === 'string' && c.thinking) out.push({ type: 'thinking', text: c.thinking });
          if (typeof c.text === 'string' && c.text) out.push({ type: 'text', text: c.text });
          break;
        }
        case 'tool-plan-delta':
          start(undefined, out);
          if (typeof message.tool_plan === 'string' && message.tool_plan)
            out.push({ type: 'thinking', text: message.tool_plan });
          break;
        case 'tool-call-start': {
          start(undefined, out);
          const tc = isObj(message.tool_calls) ? message.tool_calls : {};
          const fn = isObj(tc.function) ? tc.function : {};
          const index = calls++;
          slots.set(typeof data.index === 'number' ? data.index : index, index);
          out.push({
            type: 'tool_call',
            index,
            id: typeof tc.id === 'string' && tc.id ? tc.id : newId('call_'),
            name: typeof fn.name === 'string' ? fn.name : '',
          });
          const a = args(tc);
          if (a) out.push({ type: 'tool_args', index, delta: a });
          break;
        }
        case 'tool-call-delta': {
          const index = slots.get(typeof data.index === 'number' ? data.index : calls - 1);
          const a = args(isObj(message.tool_calls) ? message.tool_calls : {});
          if (index !== undefined && a) out.push({ type: 'tool_args', index, delta: a });
          break;
        }
        case 'message-end': {
          start(data.id, out);
          const delta = isObj(data.delta) ? data.delta : {};
          const error = finishError(delta.finish_reason, delta.error);
          if (error) {
            failed = true;
            out.push({ type: 'error', error });
            break;
          }
          finished = true;
          out.push({ type: 'finish', stop: hubStop(delta.finish_reason, calls > 0) });
          if (isObj(delta.usage)) out.push({ type: 'usage', usage: decodeUsage(delta.usage) });
          break;
        }
      }
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
