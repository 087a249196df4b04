import { isObj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { baiduError, errorCodeOf } from './errors.ts';
import { stopOf, toolCallOf } from './response.ts';

/**
 * Wenxin's stream: `data:` frames of `{id, result (the delta), is_end, usage, function_call}`; the frame with
 * is_end ends the answer. An error answer (error_code) comes instead of the frames.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let calls = 0;
  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed || finished) return [];
      const chunk = parseJsonOrNull(ev.data.trim());
      if (!isObj(chunk)) return [];
      const code = errorCodeOf(chunk);
      if (code !== null) {
        failed = true;
        return [{ type: 'error', error: baiduError(code, chunk.error_msg, 0) }];
      }
      const out: HubEvent[] = [];
      if (!started) {
        started = true;
        out.push({
          type: 'start',
          id: typeof chunk.id === 'string' && chunk.id ? chunk.id : newId('as-'),
          model: ctx.model,
          ...(typeof chunk.created === 'number' && chunk.created > 0 ? { created: chunk.created } : {}),
        });
      }
      if (typeof chunk.result === 'string' && chunk.result) out.push({ type: 'text', text: chunk.result });
      const call = toolCallOf(chunk.function_call);
      if (call) {
        out.push({ type: 'tool_call', index: calls, id: call.id, name: call.name });
        if (call.args) out.push({ type: 'tool_args', index: calls, delta: call.args });
        calls++;
      }
      if (isObj(chunk.usage)) out.push({ type: 'usage', usage: decodeUsage(chunk.usage) });
      if (chunk.is_end === true) {
        finished = true;
        out.push({ type: 'finish', stop: stopOf(chunk, calls > 0) });
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
