import { parseJsonOrNull } from '../../formats/common.ts';

/**
 * Zhipu's v3 stream (`event: add|finish|error|interrupted`, `id:`, the delta as raw text in `data:` lines,
 * and on finish a `meta:` line of JSON with the usage) as standard SSE frames the gateway's parser keeps whole:
 * `event: <name>` and `data: {"text", "id"?, "meta"?}`. The text is the data lines joined by newlines, each
 * with at most one leading space removed (as SSE reads them), so spaces and line breaks in a delta survive.
 * A body that is JSON instead of a stream (an error answer) becomes one `error` frame.
 */
export async function* zhipuFrames(body: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const decoder = new TextDecoder();
  let buf = '';
  let json: boolean | undefined;
  let event = '';
  let id = '';
  let data: string[] | null = null;
  let meta = '';

  const flush = (): string => {
    if (!event && data === null && !meta) return '';
    const payload: Record<string, unknown> = { text: data?.join('\n') ?? '' };
    if (id) payload.id = id;
    if (meta) payload.meta = parseJsonOrNull(meta.trim()) ?? meta;
    const frame = `event: ${event || 'add'}\ndata: ${JSON.stringify(payload)}\n\n`;
    event = '';
    data = null;
    meta = '';
    return frame;
  };
  const line = (l: string): string => {
    if (l === '') return flush();
    const colon = l.indexOf(':');
    if (colon === 0) return ''; // a comment
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value.trim();
    else if (field === 'id') id = value.trim();
    else if (field === 'data') {
      data ??= [];
      data.push(value);
    } else if (field === 'meta') meta += value;
    return '';
  };
  const lines = (final: boolean): string => {
    let out = '';
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      out += line(buf.slice(0, nl).replace(/\r$/, ''));
      buf = buf.slice(nl + 1);
    }
    if (final) {
      if (buf) out += line(buf.replace(/\r$/, ''));
      buf = '';
      out += flush();
    }
    return out;
  };

  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    if (json === undefined) {
      const head = buf.trimStart();
      if (!head) continue;
      json = head.startsWith('{');
    }
    if (json) continue;
    const out = lines(false);
    if (out) yield Buffer.from(out);
  }
  buf += decoder.decode();
  if (json) {
    yield Buffer.from(`event: error\ndata: ${JSON.stringify({ text: buf.trim() })}\n\n`);
    return;
  }
  const out = lines(true);
  if (out) yield Buffer.from(out);
}
