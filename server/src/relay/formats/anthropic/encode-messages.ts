import { badRequest } from '../../relay-error.ts';
import { argsObject, imageMediaType } from '../common.ts';
import type { CacheMark, HubFile, HubImage, HubMessage, HubPart, HubText, HubToolResult } from '../hub.ts';
import { isObj, type Obj } from './check.ts';

/**
 * Hub turns as Anthropic messages. Roles alternate (consecutive turns of one role are merged, a user turn's
 * tool results first), empty texts are dropped (Anthropic refuses them), thinking is replayed only with an
 * Anthropic signature (another format's signature cannot be verified; thinking without one is refused),
 * redacted thinking and Anthropic's own opaque blocks go back unchanged, other formats' parts are dropped.
 */
export function encodeMessages(messages: HubMessage[]): Array<{ role: string; content: Obj[] }> {
  const out: Array<{ role: string; content: Obj[] }> = [];
  for (const m of messages) {
    const content = m.parts.flatMap((p) => encodePart(p, m.role));
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === m.role) last.content.push(...content);
    else out.push({ role: m.role, content });
  }
  // Within a user turn, tool results come first: Anthropic wants them right after the tool_use turn.
  for (const m of out)
    if (m.role === 'user') {
      const results = m.content.filter((b) => b.type === 'tool_result');
      if (results.length && results.length < m.content.length)
        m.content = [...results, ...m.content.filter((b) => b.type !== 'tool_result')];
    }
  // A final assistant turn (a prefill) may not end with whitespace: Anthropic refuses it.
  const tail = out.at(-1)?.role === 'assistant' ? out.at(-1)?.content.at(-1) : undefined;
  if (tail?.type === 'text' && typeof tail.text === 'string') tail.text = tail.text.trimEnd();
  return out;
}

export const cacheControl = (cache: CacheMark | undefined) =>
  cache ? { cache_control: { type: 'ephemeral', ...(cache.ttl ? { ttl: cache.ttl } : {}) } } : {};

/** Anthropic's tool ids allow letters, digits, `_` and `-` only (some servers use `functions.f:0`). */
export const toolId = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_';

function textBlock(t: HubText): Obj[] {
  return t.text.trim() ? [{ type: 'text', text: t.text, ...cacheControl(t.cache) }] : [];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function imageBlock(img: HubImage | HubFile): Obj {
  if (img.url && !img.data)
    return { type: 'image', source: { type: 'url', url: img.url }, ...cacheControl(img.cache) };
  const data = img.data ?? '';
  const mediaType = imageMediaType(data, img.mediaType);
  if (!IMAGE_TYPES.has(mediaType))
    throw badRequest(`Anthropic takes jpeg, png, gif and webp images, not ${mediaType}`, 'invalid_value');
  return {
    type: 'image',
    source: { type: 'base64', media_type: mediaType, data },
    ...cacheControl(img.cache),
  };
}

/** A file: an image as an image block, a PDF or plain text as a document; other types Anthropic cannot read. */
function documentBlock(f: HubFile): Obj {
  const mediaType = f.mediaType ?? 'application/pdf';
  if (mediaType.startsWith('image/')) return imageBlock(f);
  const title = f.filename ? { title: f.filename } : {};
  if (f.url && !f.data && mediaType === 'application/pdf')
    return { type: 'document', source: { type: 'url', url: f.url }, ...title, ...cacheControl(f.cache) };
  if (f.data && mediaType === 'application/pdf')
    return {
      type: 'document',
      source: { type: 'base64', media_type: mediaType, data: f.data },
      ...title,
      ...cacheControl(f.cache),
    };
  if (f.data && mediaType.startsWith('text/'))
    return {
      type: 'document',
      source: {
        type: 'text',
        media_type: 'text/plain',
        data: Buffer.from(f.data, 'base64').toString('utf8'),
      },
      ...title,
      ...cacheControl(f.cache),
    };
  throw badRequest(
    `Anthropic cannot read ${mediaType} files${f.data ? '' : ' by URL'}; it takes images, PDFs and plain text`,
    'invalid_value',
  );
}

function toolResultBlock(r: HubToolResult): Obj {
  const content = r.content.flatMap((c) => (c.type === 'text' ? textBlock(c) : [imageBlock(c)]));
  return {
    type: 'tool_result',
    tool_use_id: toolId(r.callId),
    ...(content.length ? { content } : {}),
    ...(r.isError ? { is_error: true } : {}),
    ...cacheControl(r.cache),
  };
}

function encodePart(p: HubPart, role: 'user' | 'assistant'): Obj[] {
  switch (p.type) {
    case 'text':
      return textBlock(p);
    case 'refusal':
      return p.text.trim() ? [{ type: 'text', text: p.text }] : [];
    case 'image':
      return [imageBlock(p)];
    case 'file':
      return [documentBlock(p)];
    case 'thinking':
      if (p.redacted) return role === 'assistant' ? [{ type: 'redacted_thinking', data: p.redacted }] : [];
      if (role !== 'assistant' || p.signatureFormat !== 'anthropic' || !p.signature) return [];
      return [{ type: 'thinking', thinking: p.text, signature: p.signature }];
    case 'tool_call':
      if (role !== 'assistant') return [];
      return [
        {
          type: 'tool_use',
          id: toolId(p.id),
          name: p.name,
          input: argsObject(p.args),
          ...cacheControl(p.cache),
        },
      ];
    case 'tool_result':
      return role === 'user' ? [toolResultBlock(p)] : [];
    case 'opaque':
      return p.format === 'anthropic' && isObj(p.value) ? [{ ...p.value }] : [];
    default:
      return [];
  }
}
