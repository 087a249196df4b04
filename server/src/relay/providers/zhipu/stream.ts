import { isObj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubError, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { zhipuError } from './errors.ts';

/**
 * Zhipu's stream, as zhipuFrames rewrote it: `add` carries a delta, `finish` the last one and the usage (in
 * meta), `interrupted` ends an answer the content filter stopped, `error` is a failure.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let done = false;
  const start = (payload: Record<string, unknown>, out: HubEvent[]) => {
    if (started) return;
    started = true;
    const id = typeof payload.id === 'string' && payload.id ? payload.id : newId('chatglm-');
    out.push({ type: 'start', id, model: ctx.model });
  };
  return {
    push(ev: SseEvent): HubEvent[] {
      if (done) return [];
      const parsed = parseJsonOrNull(ev.data);
      const payload: Record<string, unknown> = isObj(parsed) ? parsed : {};
      const text = typeof payload.text === 'string' ? payload.text : '';
      const out: HubEvent[] = [];
      switch (ev.event) {
        case 'add':
          start(payload, out);
          if (text) out.push({ type: 'text', text });
          break;
        case 'finish': {
          start(payload, out);
          if (text) out.push({ type: 'text', text });
          const meta = isObj(payload.meta) ? payload.meta : {};
          if (isObj(meta.usage)) out.push({ type: 'usage', usage: decodeUsage(meta.usage) });
          done = true;
          out.push({ type: 'finish', stop: 'end' });
          break;
        }
        case 'interrupted':
          start(payload, out);
          done = true;
          out.push({ type: 'finish', stop: 'content_filter' });
          break;
        case 'error':
          done = true;
          out.push({ type: 'error', error: streamError(text) });
          break;
      }
      return out;
    },
    end(): HubEvent[] {
      if (!started || done) return [];
      return [
        {
          type: 'error',
          error: { status: 502, kind: 'server', message: 'the upstream stream ended before it finished' },
        },
      ];
    },
  };
}

/** An error event's text: a Zhipu `{code, msg}` answer, or a bare message. */
function streamError(text: string): HubError {
  const body = parseJsonOrNull(text);
  if (isObj(body) && (body.code !== undefined || body.msg !== undefined))
    return zhipuError(body.code, body.msg, 0);
  return { status: 500, kind: 'server', message: text || 'the Zhipu stream failed', code: null };
}
