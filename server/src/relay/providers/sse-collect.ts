import { createParser } from 'eventsource-parser';
import { networkError } from '../call/upstream-client.ts';
import type { HubError, HubStreamDecoder, HubUsage } from '../formats/hub.ts';

/** What a whole stream said, once read to its end. */
export interface Collected {
  id: string;
  text: string;
  thinking: string;
  refusal: string;
  usage: HubUsage | null;
  /** Set when the stream failed, or ended before it finished. */
  error: HubError | null;
}

/**
 * Reads an SSE stream body to its end through a codec's stream decoder, for a non-stream client served by an
 * upstream that is called streaming (Dify's agent apps and Coze answer whole only through polling or not at
 * all). A connection lost on the way is the relay's retryable 502 (504 on a timeout).
 */
export async function collectStream(
  body: AsyncIterable<Buffer | Uint8Array>,
  decoder: HubStreamDecoder,
): Promise<Collected> {
  const out: Collected = { id: '', text: '', thinking: '', refusal: '', usage: null, error: null };
  let started = false;
  const take = (events: ReturnType<HubStreamDecoder['push']>) => {
    for (const e of events) {
      if (out.error) return;
      if (e.type === 'start') {
        started = true;
        out.id = e.id;
      } else if (e.type === 'text') out.text += e.text;
      else if (e.type === 'thinking') out.thinking += e.text;
      else if (e.type === 'refusal') out.refusal += e.text;
      else if (e.type === 'usage') out.usage = e.usage;
      else if (e.type === 'error') out.error = e.error;
    }
  };
  const parser = createParser({
    onEvent: (m) => take(decoder.push(m.event ? { event: m.event, data: m.data } : { data: m.data })),
  });
  const text = new TextDecoder();
  try {
    for await (const chunk of body) parser.feed(text.decode(chunk, { stream: true }));
  } catch (err) {
    throw networkError(err);
  }
  parser.feed(`${text.decode()}\n\n`);
  take(decoder.end());
  if (!started && !out.error)
    out.error = {
      status: 502,
      kind: 'server',
      message: 'the upstream ended the stream without sending anything',
    };
  return out;
}
