import { isObj } from '../../formats/chat/check.ts';
import { streamDecoder as chatStreamDecoder } from '../../formats/chat/stream-decoder.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { aliError } from './errors.ts';
import { chatShape, isAliError } from './response.ts';

/**
 * DashScope's incremental SSE (`event:result` frames, each a delta with the usage so far; `event:error` with
 * `{code, message}`) read through chat's stream decoder, frame by frame in chat's shape.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  const chat = chatStreamDecoder(ctx);
  let failed = false;
  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed) return [];
      const frame = parseJsonOrNull(ev.data.trim());
      if (!isObj(frame)) return [];
      if (ev.event === 'error' || isAliError(frame)) {
        failed = true;
        return [{ type: 'error', error: aliError(frame.code, frame.message, 0) }];
      }
      return chat.push({ data: JSON.stringify(chatShape(frame)) });
    },
    end: () => (failed ? [] : chat.end()),
  };
}
