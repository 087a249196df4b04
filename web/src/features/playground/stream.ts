import { createParser } from 'eventsource-parser';
import { getStoredUser } from '../../shared/session.ts';

export interface ChatRequest {
  model: string;
  group: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  temperature: number;
  max_tokens?: number;
}

/** The message text of an error body in OpenAI's shape, the envelope, or the raw text. */
function errorMessage(status: number, text: string): string {
  try {
    const body = JSON.parse(text);
    return body?.error?.message || body?.message || `HTTP ${status}`;
  } catch {
    return text.trim() || `HTTP ${status}`;
  }
}

/**
 * Streams a playground chat (`POST /pg/chat/completions`): calls `onDelta` with each piece of
 * `choices[0].delta.content` and resolves when the DONE marker arrives or the stream closes. Throws with the
 * server's message on an HTTP error, and on an `error` event inside the stream.
 */
export async function streamChat(
  req: ChatRequest,
  onDelta: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const user = getStoredUser();
  const res = await fetch('/pg/chat/completions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(user ? { 'New-API-User': String(user.id) } : {}) },
    body: JSON.stringify({ ...req, stream: true }),
    credentials: 'same-origin',
    signal,
  });
  if (!res.ok || !res.body) throw new Error(errorMessage(res.status, await res.text()));

  let done = false;
  let streamError: string | undefined;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      let chunk: { error?: { message?: string }; choices?: Array<{ delta?: { content?: string } }> };
      try {
        chunk = JSON.parse(event.data);
      } catch {
        return;
      }
      if (chunk.error) {
        streamError = chunk.error.message || 'stream error';
        return;
      }
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) onDelta(text);
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  while (!done && !streamError) {
    const { value, done: closed } = await reader.read();
    if (closed) break;
    parser.feed(value);
  }
  if (done) reader.cancel().catch(() => {});
  if (streamError) throw new Error(streamError);
}
