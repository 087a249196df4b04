import { imageMediaType, isBase64, unpackCallId } from '../common.ts';
import type { CacheMark, HubFile, HubImage, HubOpaque, HubPart, HubText, HubToolResult } from '../hub.ts';
import { fieldError, isObj, type Obj, optBoolean, optList, reqStr, required, tagOf } from './check.ts';

/** Decoding of Anthropic content blocks (message content, system, tool_result content) into hub parts. */

/** Blocks the hub has no part for: kept whole for an Anthropic upstream, dropped by every other encoder. */
export const OPAQUE_BLOCKS = [
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'search_result',
] as const;

export const BLOCK_TAGS = [
  'text',
  'image',
  'document',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  ...OPAQUE_BLOCKS,
] as const;

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** Blocks only an assistant writes, and blocks only a user (the client) writes. */
const ASSISTANT_ONLY = new Set([
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'mcp_tool_use',
]);
const USER_ONLY = new Set(['tool_result']);

export function cacheOf(o: Obj): { cache?: CacheMark } {
  const cc = o.cache_control;
  if (!isObj(cc) || cc.type !== 'ephemeral') return {};
  return { cache: { type: 'ephemeral', ...(cc.ttl === '5m' || cc.ttl === '1h' ? { ttl: cc.ttl } : {}) } };
}

/** A text block; Anthropic refuses empty and whitespace-only ones. */
export function textBlock(o: Obj, path: string): HubText {
  const text = reqStr(o, 'text', `${path}.text`, true);
  if (!text.trim()) throw fieldError(`${path}.text`, 'text content blocks must contain non-whitespace text');
  return { type: 'text', text, ...cacheOf(o) };
}

function sourceOf(o: Obj, path: string, tags: readonly string[]): { s: Obj; tag: string } {
  if (o.source === undefined || o.source === null) throw required(`${path}.source`);
  const { o: s, tag } = tagOf(o.source, `${path}.source`, tags);
  return { s, tag };
}

/** A base64 source's `data`, refused as Anthropic's API does when it is not base64. */
function base64Data(s: Obj, path: string): string {
  const data = reqStr(s, 'data', `${path}.source.data`);
  if (!isBase64(data)) throw fieldError(`${path}.source.data`, 'Input should be valid base64 data');
  return data;
}

/** An image block: inline bytes (media type read from the bytes) or a URL; a Files API id stays Anthropic's. */
export function imageBlock(o: Obj, path: string): HubImage | HubOpaque {
  const { s, tag } = sourceOf(o, path, ['base64', 'url', 'file']);
  if (tag === 'file') {
    reqStr(s, 'file_id', `${path}.source.file_id`);
    return { type: 'opaque', format: 'anthropic', value: o };
  }
  if (tag === 'url') return { type: 'image', url: reqStr(s, 'url', `${path}.source.url`), ...cacheOf(o) };
  const declared = reqStr(s, 'media_type', `${path}.source.media_type`);
  if (!IMAGE_TYPES.includes(declared))
    throw fieldError(
      `${path}.source.media_type`,
      "Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    );
  const data = base64Data(s, path);
  return { type: 'image', data, mediaType: imageMediaType(data, declared), ...cacheOf(o) };
}

/**
 * A document block: a PDF (inline or by URL) becomes a hub file; a plain-text or content document becomes
 * text (every format can take text, few can take a text/plain file); a Files API id stays Anthropic's.
 */
export function documentBlock(o: Obj, path: string): Array<HubFile | HubImage | HubText | HubOpaque> {
  const { s, tag } = sourceOf(o, path, ['base64', 'text', 'content', 'url', 'file']);
  const filename = typeof o.title === 'string' && o.title ? { filename: o.title } : {};
  switch (tag) {
    case 'base64': {
      const mediaType = reqStr(s, 'media_type', `${path}.source.media_type`);
      if (mediaType !== 'application/pdf')
        throw fieldError(`${path}.source.media_type`, "Input should be 'application/pdf'");
      const data = base64Data(s, path);
      return [{ type: 'file', data, mediaType, ...filename, ...cacheOf(o) }];
    }
    case 'url':
      return [
        {
          type: 'file',
          url: reqStr(s, 'url', `${path}.source.url`),
          mediaType: 'application/pdf',
          ...filename,
          ...cacheOf(o),
        },
      ];
    case 'text': {
      const data = reqStr(s, 'data', `${path}.source.data`, true);
      return data.trim() ? [{ type: 'text', text: data, ...cacheOf(o) }] : [];
    }
    case 'content': {
      const c = s.content;
      if (typeof c === 'string') return c.trim() ? [{ type: 'text', text: c, ...cacheOf(o) }] : [];
      const list = optList(s, 'content', `${path}.source.content`) ?? [];
      return list.flatMap((b, i) => {
        const { o: bo, tag: bt } = tagOf(b, `${path}.source.content.${i}`, ['text', 'image']);
        return bt === 'text'
          ? textBlock(bo, `${path}.source.content.${i}`)
          : imageBlock(bo, `${path}.source.content.${i}`);
      });
    }
    default:
      reqStr(s, 'file_id', `${path}.source.file_id`);
      return [{ type: 'opaque', format: 'anthropic', value: o }];
  }
}

/**
 * The content of a tool_result: a string or text / image / document / search_result blocks. The hub carries
 * text and images; a text document becomes text, a search result its texts; a PDF has no place and is dropped.
 */
function toolResultContent(v: unknown, path: string): Array<HubText | HubImage> {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v ? [{ type: 'text', text: v }] : [];
  if (!Array.isArray(v)) throw fieldError(path, 'Input should be a valid string or a valid list');
  const out: Array<HubText | HubImage> = [];
  v.forEach((b, i) => {
    const at = `${path}.${i}`;
    const { o, tag } = tagOf(b, at, ['text', 'image', 'document', 'search_result', 'tool_reference']);
    if (tag === 'text') out.push(textBlock(o, at));
    else if (tag === 'image') {
      const img = imageBlock(o, at);
      if (img.type === 'image') out.push(img);
    } else if (tag === 'document') {
      for (const p of documentBlock(o, at)) if (p.type === 'text') out.push(p);
    } else if (tag === 'search_result' && Array.isArray(o.content)) {
      for (const c of o.content)
        if (isObj(c) && typeof c.text === 'string' && c.text) out.push({ type: 'text', text: c.text });
    }
  });
  return out;
}

/** What decoding one message's blocks needs to know about the conversation so far. */
export interface Conversation {
  /** tool_use id -> tool name, for every tool_use seen so far. */
  calls: Map<string, string>;
}

function toolResult(o: Obj, path: string, conv: Conversation): HubToolResult {
  const callId = reqStr(o, 'tool_use_id', `${path}.tool_use_id`);
  const name = conv.calls.get(callId);
  if (name === undefined)
    throw fieldError(
      path,
      `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${callId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block earlier in the conversation.`,
    );
  const isError = optBoolean(o, 'is_error', `${path}.is_error`);
  return {
    type: 'tool_result',
    callId,
    name,
    content: toolResultContent(o.content, `${path}.content`),
    ...(isError ? { isError: true } : {}),
    ...cacheOf(o),
  };
}

/**
 * One content block of a message as hub parts (none, one or several). A tool_use id made by packCallId stays
 * whole (the client echoes it in its tool_result) and the Gemini signature inside it is also put where the hub
 * carries signatures. A thinking block's signature is Anthropic's; an empty one (a block this gateway wrote
 * for thinking that came from another format) is no signature.
 */
export function blockParts(
  b: unknown,
  path: string,
  role: 'user' | 'assistant',
  conv: Conversation,
): HubPart[] {
  const { o, tag } = tagOf(b, path, BLOCK_TAGS);
  if (role === 'user' && ASSISTANT_ONLY.has(tag))
    throw fieldError(path, `\`${tag}\` blocks can only be in \`assistant\` messages`);
  if (role === 'assistant' && USER_ONLY.has(tag))
    throw fieldError(path, `\`${tag}\` blocks can only be in \`user\` messages`);
  switch (tag) {
    case 'text':
      return [textBlock(o, path)];
    case 'image':
      return [imageBlock(o, path)];
    case 'document':
      return documentBlock(o, path);
    case 'thinking': {
      const text = reqStr(o, 'thinking', `${path}.thinking`, true);
      const signature = reqStr(o, 'signature', `${path}.signature`, true);
      return [
        {
          type: 'thinking',
          text,
          ...(signature ? { signature, signatureFormat: 'anthropic' as const } : {}),
        },
      ];
    }
    case 'redacted_thinking':
      return [{ type: 'thinking', text: '', redacted: reqStr(o, 'data', `${path}.data`) }];
    case 'tool_use': {
      const id = reqStr(o, 'id', `${path}.id`);
      const name = reqStr(o, 'name', `${path}.name`);
      if (o.input === undefined) throw required(`${path}.input`);
      if (!isObj(o.input)) throw fieldError(`${path}.input`, 'Input should be a valid dictionary');
      conv.calls.set(id, name);
      const { signature } = unpackCallId(id);
      return [
        {
          type: 'tool_call',
          id,
          name,
          args: JSON.stringify(o.input),
          ...(signature ? { signature, signatureFormat: 'gemini' as const } : {}),
          ...cacheOf(o),
        },
      ];
    }
    case 'tool_result':
      return [toolResult(o, path, conv)];
    default:
      return [{ type: 'opaque', format: 'anthropic', value: o }];
  }
}
