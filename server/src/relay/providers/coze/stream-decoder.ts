import { isObj } from '../../formats/chat/check.ts';
import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { cozeError } from './errors.ts';
import { decodeUsage } from './usage.ts';

/**
 * Coze's chat stream (named SSE events) as hub events: conversation.message.delta of the answer carries its
 * text (and reasoning_content, a reasoning model's thinking), conversation.chat.completed the usage,
 * conversation.chat.failed and error a failure, done the end. A completed message repeats the deltas and
 * function_call, tool_response, follow_up and verbose messages are the bot's own business: skipped. A chat
 * that requires action waits for local plugin outputs the gateway cannot give: an error.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let done = false;

  const start = (id: unknown, out: HubEvent[]) => {
    if (started) return;
    started = true;
    out.push({ type: 'start', id: typeof id === 'string' && id ? id : newId('chatcmpl-'), model: ctx.model });
  };
  const fail = (error: ReturnType<typeof cozeError>, out: HubEvent[]) => {
    failed = true;
    out.push({ type: 'error', error });
  };

  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed || finished) return [];
      if (ev.event === 'done') {
        done = true;
        return [];
      }
      const d = parseJsonOrNull(ev.data.trim());
      if (!isObj(d)) return [];
      const out: HubEvent[] = [];
      switch (ev.event) {
        case 'conversation.chat.created':
          start(d.id, out);
          break;
        case 'conversation.message.delta':
          if (d.type !== 'answer' || d.role === 'user') break;
          start(d.chat_id, out);
          if (typeof d.reasoning_content === 'string' && d.reasoning_content)
            out.push({ type: 'thinking', text: d.reasoning_content });
          if (typeof d.content === 'string' && d.content) out.push({ type: 'text', text: d.content });
          break;
        case 'conversation.chat.completed':
          start(d.id, out);
          finished = true;
          out.push({ type: 'finish', stop: 'end' });
          if (isObj(d.usage)) out.push({ type: 'usage', usage: decodeUsage(d.usage) });
          break;
        case 'conversation.chat.failed':
          fail(cozeError(isObj(d.last_error) ? d.last_error : {}, 0), out);
          break;
        case 'conversation.chat.requires_action':
          fail(
            {
              status: 400,
              kind: 'invalid_request',
              message: 'the Coze bot asked for local plugin outputs, which the gateway cannot submit',
            },
            out,
          );
          break;
        case 'error':
          fail(cozeError(d, 0), out);
          break;
      }
      return out;
    },
    end(): HubEvent[] {
      if (!started || finished || failed) return [];
      if (done) return [{ type: 'finish', stop: 'end' }];
      return [
        {
          type: 'error',
          error: { status: 502, kind: 'server', message: 'the upstream stream ended before it finished' },
        },
      ];
    },
  };
}
