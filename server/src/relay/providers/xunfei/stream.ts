import { newId, parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { frameCode, sparkError } from './errors.ts';
import { readFrame } from './frames.ts';

/** Spark's frames as the adapter relays them, one `data:` event each; status 2 ends the answer. */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let done = false;
  let calls = 0;
  return {
    push(ev: SseEvent): HubEvent[] {
      if (done) return [];
      const frame = parseJsonOrNull(ev.data);
      const out: HubEvent[] = [];
      const code = frameCode(frame);
      if (code !== null) {
        done = true;
        return [{ type: 'error', error: sparkError(code, frame.header?.message, 0) }];
      }
      const f = readFrame(frame);
      if (!started) {
        started = true;
        out.push({ type: 'start', id: f.sid || newId('spark-'), model: ctx.model });
      }
      if (f.text) out.push({ type: 'text', text: f.text });
      for (const c of f.calls) {
        const index = calls++;
        out.push({ type: 'tool_call', index, id: c.id, name: c.name });
        if (c.args) out.push({ type: 'tool_args', index, delta: c.args });
      }
      if (f.usage) out.push({ type: 'usage', usage: f.usage });
      if (f.last) {
        done = true;
        out.push({ type: 'finish', stop: calls ? 'tool_calls' : 'end' });
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
