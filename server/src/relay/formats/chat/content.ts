import { badRequest } from '../../relay-error.ts';
import { imageFromUrl, imageMediaType } from '../common.ts';
import type { CacheMark, HubFile, HubImage, HubOpaque, HubText } from '../hub.ts';
import { invalid, isObj, type Obj } from './check.ts';

/** Decoding of message content: strings and content parts. */

export type UserPart = HubText | HubImage | HubFile | HubOpaque;

/**
 * A cache mark on a content part: OpenRouter-style `cache_control` (Cline and others send it for Claude
 * models) or OpenAI's own `prompt_cache_breakpoint`.
 */
function cacheOf(p: Obj): { cache?: CacheMark } {
  const cc = p.cache_control;
  if (isObj(cc) && cc.type === 'ephemeral')
    return { cache: { type: 'ephemeral', ...(cc.ttl === '1h' || cc.ttl === '5m' ? { ttl: cc.ttl } : {}) } };
  return isObj(p.prompt_cache_breakpoint) ? { cache: { type: 'ephemeral' } } : {};
}

function textPart(p: Obj, at: string): HubText | null {
  if (typeof p.text !== 'string') throw invalid(`${at}.text`, 'expected a string');
  return p.text === '' ? null : { type: 'text', text: p.text, ...cacheOf(p) };
}

/** Parts of a content array, each checked to be an object with a string type. */
function partsOf(content: unknown[], at: string): Array<{ p: Obj; at: string }> {
  return content.map((p, j) => {
    const pat = `${at}[${j}]`;
    if (!isObj(p) || typeof p.type !== 'string') throw invalid(`${pat}.type`, 'expected a content part type');
    return { p, at: pat };
  });
}

/**
 * Text-only content (system, developer and tool messages; text parts of assistant messages): a string or
 * an array of text parts. Empty texts are dropped (no format needs them, Anthropic refuses them).
 */
export function textContent(content: unknown, at: string, allowRefusal = false): HubText[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(at, 'expected a string or an array of content parts');
  const out: HubText[] = [];
  for (const { p, at: pat } of partsOf(content, at)) {
    if (p.type === 'refusal' && allowRefusal) continue; // read by the assistant decoder
    if (p.type !== 'text') throw invalid(`${pat}.type`, `'${p.type}' is not allowed here, only 'text'`);
    const t = textPart(p, pat);
    if (t) out.push(t);
  }
  return out;
}

const AUDIO_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

/** A user message's content: a string or an array of text, image_url, input_audio and file parts. */
export function userContent(content: unknown, at: string): UserPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(at, 'expected a string or an array of content parts');
  const out: UserPart[] = [];
  for (const { p, at: pat } of partsOf(content, at)) {
    const part = userPart(p, pat);
    if (part) out.push(part);
  }
  return out;
}

function userPart(p: Obj, at: string): UserPart | null {
  switch (p.type) {
    case 'text':
      return textPart(p, at);
    case 'image_url': {
      // Some clients send image_url as the bare URL string.
      const img = typeof p.image_url === 'string' ? { url: p.image_url } : p.image_url;
      if (!isObj(img) || typeof img.url !== 'string' || !img.url)
        throw invalid(`${at}.image_url.url`, 'expected a URL string');
      const detail = typeof img.detail === 'string' ? img.detail : undefined;
      return { ...imageFromUrl(img.url, detail, `${at}.image_url.url`), ...cacheOf(p) };
    }
    case 'input_audio': {
      const a = p.input_audio;
      if (!isObj(a) || typeof a.data !== 'string' || !a.data)
        throw invalid(`${at}.input_audio.data`, 'expected base64 audio data');
      const mediaType = AUDIO_TYPES[String(a.format)];
      if (!mediaType) throw invalid(`${at}.input_audio.format`, "expected 'wav' or 'mp3'");
      // The hub has no audio part: audio travels as an inline file with an audio media type.
      return { type: 'file', data: a.data, mediaType, ...cacheOf(p) };
    }
    case 'file':
      return filePart(p, at);
    default:
      throw invalid(`${at}.type`, `'${p.type}' is not a user content part type`);
  }
}

/** A file part: inline bytes (a data URL or bare base64) become a hub file; a file_id only OpenAI can use. */
function filePart(p: Obj, at: string): HubFile | HubOpaque {
  const f = p.file;
  if (!isObj(f)) throw invalid(`${at}.file`, 'expected an object');
  const filename = typeof f.filename === 'string' && f.filename ? { filename: f.filename } : {};
  if (typeof f.file_data === 'string' && f.file_data) {
    const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(f.file_data);
    const data = m ? (m[2] ? m[3] : Buffer.from(decodeURIComponent(m[3])).toString('base64')) : f.file_data;
    // Bare base64 is a PDF: the only file type chat completions documents.
    const declared = (m ? m[1] : '') || 'application/pdf';
    const mediaType = declared.startsWith('image/') ? imageMediaType(data, declared) : declared;
    return { type: 'file', data, mediaType, ...filename, ...cacheOf(p) };
  }
  if (typeof f.file_id === 'string' && f.file_id) return { type: 'opaque', format: 'openai', value: p };
  throw badRequest(`${at}.file needs file_data or file_id`, 'invalid_value', `${at}.file`);
}
