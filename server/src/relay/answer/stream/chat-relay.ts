import type { HubStreamEncoder, SseEvent } from '../../formats/hub.ts';
import type { ChunkRewrite } from './chunk-rewrite.ts';

const DONE = 'data: [DONE]\n\n';
/**
 * A same-format OpenAI stream's events as the client's frames, as the upstream wrote them but for the
 * gateway's edits: the usage-only chunk the gateway asked for is dropped when the client did not ask for it,
 * the channel's chunk rewrites apply, and the upstream's `[DONE]` is held back (the closing writes it, after
 * a usage chunk counted here when one is owed). Chunks that need none of that are not parsed.
 */
export function chatEventRelay(
  dropUsageOnly: boolean,
  rewrite?: ChunkRewrite,
): (ev: SseEvent, mayMatter: boolean) => string {
  // mayMatter: the event may carry usage or an error (format-stream.ts); the usage-only one is among them.
  return (ev, mayMatter) => {
    const data = ev.data;
    if (!data || data === '[DONE]') return '';
    if (!rewrite && !(dropUsageOnly && mayMatter)) return `data: ${data}\n\n`;
    // The event as the decoder read it, unless a rewrite will edit it (rewrites edit the chunk they get).
    let chunk: any = rewrite ? undefined : ev.json;
    if (chunk == null) {
      try {
        chunk = JSON.parse(data);
      } catch {
        return '';
      }
    }
    if (dropUsageOnly && chunk?.usage && Array.isArray(chunk.choices) && chunk.choices.length === 0)
      return '';
    if (!rewrite || chunk?.error) return `data: ${data}\n\n`;
    return framesOf(rewrite(chunk));
  };
}

/** The end of a same-format OpenAI stream that ended well: the usage chunk owed (if any), then `[DONE]`. */
export const chatClosing = (usageChunk: Record<string, unknown> | null) =>
  usageChunk ? `data: ${JSON.stringify(usageChunk)}\n\n${DONE}` : DONE;

/**
 * An encoder of chat.completion.chunk frames with the channel's chunk rewrites applied to what it writes,
 * so a chat client served through conversion gets them as a same-format one does.
 */
export function rewritingEncoder(
  inner: HubStreamEncoder,
  rewrite: ChunkRewrite | undefined,
): HubStreamEncoder {
  if (!rewrite) return inner;
  const frames = (s: string) => (s ? rewriteFrames(s, rewrite) : s);
  return { push: (e) => frames(inner.push(e)), end: () => frames(inner.end()) };
}

function rewriteFrames(s: string, rewrite: ChunkRewrite): string {
  let out = '';
  for (const frame of s.split('\n\n')) {
    if (!frame) continue;
    const data = frame.startsWith('data: ') ? frame.slice(6) : '';
    let chunk: any;
    try {
      chunk = data && data !== '[DONE]' ? JSON.parse(data) : undefined;
    } catch {}
    out += chunk && !chunk.error ? framesOf(rewrite(chunk)) : `${frame}\n\n`;
  }
  return out;
}

function framesOf(chunks: unknown[]): string {
  let out = '';
  for (const c of chunks) out += `data: ${JSON.stringify(c)}\n\n`;
  return out;
}
