import { isObj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { difyError } from './errors.ts';

/**
 * Dify's chat stream (`data:` JSON with an `event` field) as hub events: message and agent_message carry the
 * answer's text, message_end the usage, error a failure. An agent app that streamed agent_message closes
 * with one message event repeating the whole answer: skipped. message_replace (output moderation flagged the
 * answer) cannot take back what was sent: its preset reply comes as a refusal and the answer ends as
 * filtered. ping, agent_thought, message_file, tts_* and workflow/node events carry nothing the hub keeps.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let agent = false;
  let replaced = false;

  const start = (d: Record<string, unknown>, out: HubEvent[]) => {
    if (started) return;
    started = true;
    const id = [d.message_id, d.id, d.task_id].find((v) => typeof v === 'string' && v);
    out.push({ type: 'start', id: typeof id === 'string' ? id : newId('chatcmpl-'), model: ctx.model });
  };

  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed || finished) return [];
      const d = parseJsonOrNull(ev.data.trim());
      if (!isObj(d)) return [];
      const out: HubEvent[] = [];
      const answer = typeof d.answer === 'string' ? d.answer : '';
      switch (d.event) {
        case 'agent_message':
          agent = true;
          start(d, out);
          if (answer) out.push({ type: 'text', text: answer });
          break;
        case 'message':
          start(d, out);
          if (answer && !agent) out.push({ type: 'text', text: answer });
          break;
        case 'message_replace':
          start(d, out);
          replaced = true;
          if (answer) out.push({ type: 'refusal', text: answer });
          break;
        case 'message_end': {
          start(d, out);
          finished = true;
          out.push({ type: 'finish', stop: replaced ? 'content_filter' : 'end' });
          const meta = isObj(d.metadata) ? d.metadata : {};
          if (isObj(meta.usage)) out.push({ type: 'usage', usage: decodeUsage(meta.usage) });
          break;
        }
        case 'error':
          failed = true;
          out.push({ type: 'error', error: difyError(d, 0) });
          break;
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
