import { badRequest } from '../../relay-error.ts';
import { imageMediaType, unpackCallId } from '../common.ts';
import type { HubFile, HubImage, HubMessage, HubOpaque, HubPart, HubText, HubToolResult } from '../hub.ts';
import { base64, field, invalidValue, isObj, join, type Obj, optString, ruleError } from './check.ts';

/**
 * Gemini `contents` as hub turns. Roles are user and model (an absent role is user; `function`, the old role
 * of function responses, is read as user); consecutive turns of one role are merged. Function calls without
 * an id get one that is unique in the request and stable across requests (`call_<turn>_<part>`, so an
 * upstream's prompt cache still matches the replayed history); a function response without an id answers
 * the earliest unanswered call of its name. A thoughtSignature on a text part becomes an empty thinking part
 * carrying it, right after the text (the Gemini encoder puts it back on that text); a part that carries only
 * a signature is kept the same way. Code execution parts and Google-hosted files travel as Gemini opaque parts.
 */
export function decodeContents(raw: unknown): HubMessage[] {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0))
    throw ruleError('contents', 'contents is not specified');
  if (!Array.isArray(raw))
    throw invalidValue('contents', 'type.googleapis.com/google.ai.generativelanguage.v1beta.Content', raw);
  const calls: Array<{ id: string; name: string; answered: boolean }> = [];
  const messages: HubMessage[] = [];
  raw.forEach((c, i) => {
    const at = `contents[${i}]`;
    if (!isObj(c))
      throw invalidValue(at, 'type.googleapis.com/google.ai.generativelanguage.v1beta.Content', c);
    const role = c.role === undefined || c.role === null || c.role === '' ? 'user' : c.role;
    if (role !== 'user' && role !== 'model' && role !== 'function')
      throw badRequest('Please use a valid role: user, model.', 'invalid_argument', `${at}.role`);
    const list = field(c, 'parts');
    if (list === undefined || list === null || (Array.isArray(list) && list.length === 0))
      throw ruleError(`${at}.parts`, 'contents.parts must not be empty.');
    if (!Array.isArray(list))
      throw invalidValue(`${at}.parts`, 'type.googleapis.com/google.ai.generativelanguage.v1beta.Part', list);
    const parts: HubPart[] = [];
    list.forEach((p, j) => {
      const pat = `${at}.parts[${j}]`;
      if (!isObj(p))
        throw invalidValue(pat, 'type.googleapis.com/google.ai.generativelanguage.v1beta.Part', p);
      if (role === 'model') parts.push(...modelPart(p, pat, `call_${i}_${j}`, calls));
      else parts.push(...userPart(p, pat, calls));
    });
    if (parts.length === 0) return;
    const hubRole = role === 'model' ? 'assistant' : 'user';
    const last = messages.at(-1);
    if (last?.role === hubRole) last.parts.push(...parts);
    else messages.push({ role: hubRole, parts });
  });
  return messages;
}

/** The part's data field (Google's `data` oneof), checked to be the right shape. */
type Data =
  | { kind: 'text'; text: string }
  | { kind: 'inlineData' | 'fileData' | 'functionCall' | 'functionResponse'; value: Obj }
  | { kind: 'other'; name: string }
  | { kind: 'none' };

const OTHER_DATA = ['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'];

function dataOf(p: Obj, at: string): Data {
  const text = field(p, 'text');
  if (text !== undefined && text !== null) {
    if (typeof text !== 'string') throw invalidValue(`${at}.text`, 'TYPE_STRING', text);
    return { kind: 'text', text };
  }
  for (const kind of ['inlineData', 'fileData', 'functionCall', 'functionResponse'] as const) {
    const v = field(p, kind);
    if (v === undefined || v === null) continue;
    if (!isObj(v))
      throw invalidValue(
        join(at, kind),
        `type.googleapis.com/google.ai.generativelanguage.v1beta.${kind}`,
        v,
      );
    return { kind, value: v };
  }
  const other = OTHER_DATA.find((k) => isObj(field(p, k)));
  return other ? { kind: 'other', name: other } : { kind: 'none' };
}

function signatureOf(p: Obj, at: string): string | undefined {
  const sig = field(p, 'thoughtSignature');
  if (sig === undefined || sig === null || sig === '') return undefined;
  return base64(sig, join(at, 'thoughtSignature'));
}

const noData = (at: string) =>
  ruleError(`${at}.data`, "required oneof field 'data' must have one initialized field");

/** Inline bytes as an image or a file part. */
function inline(d: Obj, at: string): HubImage | HubFile {
  const path = join(at, 'inlineData');
  const mime = optString(d, 'mimeType', path);
  if (!mime) throw ruleError(join(path, 'mimeType'), 'Missing mime_type.');
  const data = base64(field(d, 'data'), join(path, 'data'));
  if (mime.startsWith('image/')) return { type: 'image', data, mediaType: imageMediaType(data, mime) };
  return { type: 'file', data, mediaType: mime };
}

/**
 * A file by URI: a public http(s) URL as an image or file URL every format can use; a Files API URI or a
 * gs:// URI only a Gemini upstream can read, so it stays a Gemini opaque part.
 */
function byUri(p: Obj, d: Obj, at: string): HubImage | HubFile | HubOpaque {
  const path = join(at, 'fileData');
  const uri = optString(d, 'fileUri', path);
  if (!uri) throw ruleError(join(path, 'fileUri'), 'Missing file_uri.');
  const mime = optString(d, 'mimeType', path);
  if (!/^https?:\/\//i.test(uri) || /generativelanguage\.googleapis\.com\/.*\/files\//i.test(uri))
    return { type: 'opaque', format: 'gemini', value: p };
  if (mime?.startsWith('image/') || (!mime && /\.(png|jpe?g|gif|webp)(\?|$)/i.test(uri)))
    return { type: 'image', url: uri, ...(mime ? { mediaType: mime } : {}) };
  return { type: 'file', url: uri, ...(mime ? { mediaType: mime } : {}) };
}

function userPart(
  p: Obj,
  at: string,
  calls: Array<{ id: string; name: string; answered: boolean }>,
): HubPart[] {
  const d = dataOf(p, at);
  switch (d.kind) {
    case 'text':
      // Thought parts are the model's; in a user turn there is nothing to do with them.
      return d.text && field(p, 'thought') !== true ? [{ type: 'text', text: d.text }] : [];
    case 'inlineData':
      return [inline(d.value, at)];
    case 'fileData':
      return [byUri(p, d.value, at)];
    case 'functionResponse':
      return [toolResult(d.value, join(at, 'functionResponse'), calls)];
    case 'functionCall':
      throw badRequest(
        `Invalid value at '${at}.function_call': a function call must be in a model turn, not a user turn.`,
        'invalid_argument',
        `${at}.function_call`,
      );
    case 'other':
      return [{ type: 'opaque', format: 'gemini', value: p }];
    default:
      if (signatureOf(p, at)) return [];
      throw noData(at);
  }
}

function modelPart(
  p: Obj,
  at: string,
  fallbackId: string,
  calls: Array<{ id: string; name: string; answered: boolean }>,
): HubPart[] {
  const sig = signatureOf(p, at);
  const signed = (text: string): HubPart => ({
    type: 'thinking',
    text,
    ...(sig ? { signature: sig, signatureFormat: 'gemini' as const } : {}),
  });
  const d = dataOf(p, at);
  switch (d.kind) {
    case 'text': {
      if (field(p, 'thought') === true) return d.text || sig ? [signed(d.text)] : [];
      const out: HubPart[] = d.text ? [{ type: 'text', text: d.text }] : [];
      if (sig) out.push(signed(''));
      return out;
    }
    case 'functionCall': {
      const fc = d.value;
      const path = join(at, 'functionCall');
      const name = optString(fc, 'name', path);
      if (!name) throw ruleError(join(path, 'name'), 'Name cannot be empty.');
      const args = field(fc, 'args');
      if (args !== undefined && args !== null && !isObj(args))
        throw invalidValue(join(path, 'args'), 'type.googleapis.com/google.protobuf.Struct', args);
      const id = optString(fc, 'id', path) || fallbackId;
      calls.push({ id, name, answered: false });
      // An id packed by another format's encoder carries the signature when the part lost it.
      const signature = sig ?? unpackCallId(id).signature;
      return [
        {
          type: 'tool_call',
          id,
          name,
          args: JSON.stringify(args ?? {}),
          ...(signature ? { signature, signatureFormat: 'gemini' as const } : {}),
        },
      ];
    }
    case 'inlineData':
      return withSignature(inline(d.value, at), sig);
    case 'fileData':
      return withSignature(byUri(p, d.value, at), sig);
    case 'functionResponse':
      throw badRequest(
        `Invalid value at '${at}.function_response': a function response must be in a user turn, not a model turn.`,
        'invalid_argument',
        `${at}.function_response`,
      );
    case 'other':
      return [{ type: 'opaque', format: 'gemini', value: p }];
    default:
      if (sig) return [signed('')];
      throw noData(at);
  }
}

function withSignature(part: HubPart, sig: string | undefined): HubPart[] {
  return sig ? [part, { type: 'thinking', text: '', signature: sig, signatureFormat: 'gemini' }] : [part];
}

/**
 * A functionResponse as a tool result: the call it answers (by id, else the earliest unanswered call of
 * that name), its response as text (a lone `output`, `result` or `content` string as itself, a lone `error`
 * string as an error result, anything else as JSON) and the images of its multimodal `parts`.
 */
function toolResult(
  fr: Obj,
  at: string,
  calls: Array<{ id: string; name: string; answered: boolean }>,
): HubToolResult {
  const name = optString(fr, 'name', at);
  if (!name) throw ruleError(join(at, 'name'), 'Name cannot be empty.');
  const response = field(fr, 'response');
  if (response !== undefined && response !== null && !isObj(response))
    throw invalidValue(join(at, 'response'), 'type.googleapis.com/google.protobuf.Struct', response);
  const id = optString(fr, 'id', at);
  const call = id ? calls.find((c) => c.id === id) : calls.find((c) => !c.answered && c.name === name);
  if (call) call.answered = true;
  const callId = id || call?.id || `call_${name}_${calls.length}`;
  const { text, isError } = responseText(isObj(response) ? response : {});
  const content: Array<HubText | HubImage> = text ? [{ type: 'text', text }] : [];
  const parts = field(fr, 'parts');
  if (Array.isArray(parts))
    parts.forEach((p, k) => {
      const inl = isObj(p) ? field(p, 'inlineData') : undefined;
      if (!isObj(inl)) return;
      const media = inline(inl, `${join(at, 'parts')}[${k}]`);
      if (media.type === 'image') content.push(media);
    });
  return { type: 'tool_result', callId, name, content, ...(isError ? { isError } : {}) };
}

function responseText(r: Obj): { text: string; isError: boolean } {
  const keys = Object.keys(r);
  if (keys.length === 1) {
    const v = r[keys[0]];
    if (typeof v === 'string') {
      if (keys[0] === 'error') return { text: v, isError: true };
      if (keys[0] === 'output' || keys[0] === 'result' || keys[0] === 'content')
        return { text: v, isError: false };
    }
  }
  return { text: keys.length ? JSON.stringify(r) : '', isError: false };
}
