import { isObj } from '../../formats/chat/check.ts';
import { streamDecoder as chatStreamDecoder } from '../../formats/chat/stream-decoder.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../../formats/hub.ts';
import { hunyuanError, streamError } from './errors.ts';
import { chatShape } from './response.ts';

/**
 * Hunyuan's SSE (`data: {Id, Choices:[{Delta, FinishReason}], Usage}`) read through chat's stream decoder.
 * A chunk's `ErrorMsg`, or a whole `{Response:{Error}}` answer (see jsonAsSse), is the stream's error.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  const chat = chatStreamDecoder(ctx);
  let failed = false;
  return {
    push(ev: SseEvent): HubEvent[] {
      if (failed) return [];
      const chunk = parseJsonOrNull(ev.data.trim());
      if (!isObj(chunk)) return [];
      const r = isObj(chunk.Response) ? chunk.Response : chunk;
      if (isObj(r.Error) || isObj(r.ErrorMsg)) {
        failed = true;
        const error = isObj(r.Error)
          ? hunyuanError(r.Error.Code, r.Error.Message)
          : streamError(r.ErrorMsg as object);
        return [{ type: 'error', error }];
      }
      return chat.push({ data: JSON.stringify(chatShape(r)) });
    },
    end: () => (failed ? [] : chat.end()),
  };
}

/**
 * A stream request Tencent refuses is answered with one JSON body (`{Response:{Error}}`), not SSE: that body
 * becomes one SSE frame, so the decoder reports the error. An SSE body passes unchanged.
 */
export async function* jsonAsSse(body: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const head: Buffer[] = [];
  let json: boolean | undefined;
  for await (const chunk of body) {
    if (json === false) {
      yield chunk;
      continue;
    }
    head.push(chunk);
    if (json === undefined) {
      const start = Buffer.concat(head).toString('utf8').trimStart();
      if (!start) continue;
      json = start.startsWith('{');
      if (!json) {
        yield* head;
        head.length = 0;
      }
    }
  }
  if (!head.length) return;
  const text = Buffer.concat(head).toString('utf8');
  const parsed = parseJsonOrNull(text);
  yield Buffer.from(`data: ${parsed ? JSON.stringify(parsed) : text.replace(/\r?\n/g, ' ')}\n\n`);
}
