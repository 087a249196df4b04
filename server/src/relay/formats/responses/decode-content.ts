import { badRequest } from '../../relay-error.ts';
import { invalid, isObj, type Obj } from '../chat/check.ts';
import { imageFromUrl, imageMediaType } from '../common.ts';
import type { HubFile, HubImage, HubOpaque, HubRefusal, HubText } from '../hub.ts';

/** Decoding of Responses content: strings and input_text / input_image / input_file / output_text parts. */

export type InputPart = HubText | HubImage | HubFile | HubOpaque;

/** Parts of a content array, each checked to be an object with a string type. */
export function partsOf(content: unknown[], at: string): Array<{ p: Obj; at: string }> {
  return content.map((p, j) => {
    const pat = `${at}[${j}]`;
    if (!isObj(p) || typeof p.type !== 'string') throw invalid(`${pat}.type`, 'expected a content part type');
    return { p, at: pat };
  });
}

/** Text part types, read alike wherever text is allowed (clients mix input_text and output_text up). */
const TEXT_TYPES = new Set(['input_text', 'output_text', 'text']);

function textOf(p: Obj, at: string): HubText | null {
  if (typeof p.text !== 'string') throw invalid(`${at}.text`, 'expected a string');
  return p.text ? { type: 'text', text: p.text } : null;
}

/** An input_image part: an http(s) or data URL (a bare string, or `{url}` as some clients send); a file_id only OpenAI can use. */
function imagePart(p: Obj, at: string): HubImage | HubOpaque {
  const detail = typeof p.detail === 'string' && p.detail ? p.detail : undefined;
  const url =
    typeof p.image_url === 'string' ? p.image_url : isObj(p.image_url) ? p.image_url.url : undefined;
  if (typeof url === 'string' && url) return imageFromUrl(url, detail, `${at}.image_url`);
  if (typeof p.file_id === 'string' && p.file_id) return { type: 'opaque', format: 'responses', value: p };
  throw badRequest(`${at} needs image_url or file_id`, 'missing_required_parameter', `${at}.image_url`);
}

/** An input_file part: inline bytes (a data URL, or bare base64 read as a PDF) or a URL; a file_id only OpenAI can use. */
function filePart(p: Obj, at: string): HubFile | HubOpaque {
  const filename = typeof p.filename === 'string' && p.filename ? { filename: p.filename } : {};
  if (typeof p.file_data === 'string' && p.file_data) {
    const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(p.file_data);
    const data = m ? (m[2] ? m[3] : Buffer.from(decodeURIComponent(m[3])).toString('base64')) : p.file_data;
    const declared = (m ? m[1] : '') || 'application/pdf';
    const mediaType = declared.startsWith('image/') ? imageMediaType(data, declared) : declared;
    return { type: 'file', data, mediaType, ...filename };
  }
  if (typeof p.file_url === 'string' && p.file_url) {
    if (!/^https?:\/\//i.test(p.file_url)) throw invalid(`${at}.file_url`, 'expected an http(s) URL');
    return { type: 'file', url: p.file_url, mediaType: 'application/pdf', ...filename };
  }
  if (typeof p.file_id === 'string' && p.file_id) return { type: 'opaque', format: 'responses', value: p };
  throw badRequest(
    `${at} needs file_data, file_url or file_id`,
    'missing_required_parameter',
    `${at}.file_data`,
  );
}

/** Content a user (or a tool output) gives: a string, or text, image and file parts. */
export function inputContent(content: unknown, at: string): InputPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(at, 'expected a string or an array of content parts');
  const out: InputPart[] = [];
  for (const { p, at: pat } of partsOf(content, at)) {
    if (TEXT_TYPES.has(p.type as string)) {
      const t = textOf(p, pat);
      if (t) out.push(t);
    } else if (p.type === 'input_image') out.push(imagePart(p, pat));
    else if (p.type === 'input_file') out.push(filePart(p, pat));
    else
      throw invalid(
        `${pat}.type`,
        `'${p.type}' is not supported here; expected 'input_text', 'input_image' or 'input_file'`,
      );
  }
  return out;
}

/** Text-only content (system and developer messages). */
export function textContent(content: unknown, at: string): HubText[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(at, 'expected a string or an array of content parts');
  const out: HubText[] = [];
  for (const { p, at: pat } of partsOf(content, at)) {
    if (!TEXT_TYPES.has(p.type as string))
      throw invalid(
        `${pat}.type`,
        `'${p.type}' is not supported in a system or developer message, only 'input_text'`,
      );
    const t = textOf(p, pat);
    if (t) out.push(t);
  }
  return out;
}

/** An assistant message's content: a string, or output_text and refusal parts. */
export function assistantContent(content: unknown, at: string): Array<HubText | HubRefusal> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(at, 'expected a string or an array of content parts');
  const out: Array<HubText | HubRefusal> = [];
  for (const { p, at: pat } of partsOf(content, at)) {
    if (TEXT_TYPES.has(p.type as string)) {
      const t = textOf(p, pat);
      if (t) out.push(t);
    } else if (p.type === 'refusal') {
      if (typeof p.refusal !== 'string') throw invalid(`${pat}.refusal`, 'expected a string');
      if (p.refusal) out.push({ type: 'refusal', text: p.refusal });
    } else
      throw invalid(
        `${pat}.type`,
        `'${p.type}' is not supported in an assistant message; expected 'output_text' or 'refusal'`,
      );
  }
  return out;
}
