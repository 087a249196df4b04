import { randomHex } from '../../infra/random-hex.ts';
import { badRequest, RelayError } from '../relay-error.ts';
import type { HubErrorKind, HubImage, HubUsage } from './hub.ts';

/** Small helpers every codec uses. */

/** A fresh id with a format's prefix (`msg_`, `call_`, `toolu_`, `resp_` ...). */
export const newId = (prefix: string) => `${prefix}${randomHex(12)}`;

/** One SSE frame with a data line only (OpenAI chat, Gemini). */
export const sseData = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/** One SSE frame with an event name (Anthropic, Responses: the name equals the payload's type). */
export const sseEvent = (name: string, payload: unknown) =>
  `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;

/** `to` with the fields of `options` that are set copied onto it (the hub leaves unset options out). */
export function withDefined<T extends object, O extends object>(to: T, options: O): T & Partial<O> {
  const out = to as T & Partial<O>;
  for (const k in options) if (options[k] !== undefined) (out as Partial<O>)[k] = options[k];
  return out;
}

export function parseJsonOrNull(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The JSON string literal a fast-path pattern captured (the text of a stream's text delta), as JSON reads
 * it; undefined when nothing matched or the literal is not valid JSON, and the event takes the full parse.
 */
export function capturedString(m: RegExpExecArray | null, group: number): string | undefined {
  const v = m ? parseJsonOrNull(m[group] as string) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Tool-call arguments as an object (for formats that carry objects); malformed text becomes `{}`. */
export function argsObject(args: string): Record<string, unknown> {
  if (!args.trim()) return {};
  const v = parseJsonOrNull(args);
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/**
 * Whether text is base64, standard or web-safe, padded or not, line breaks allowed (what Google, Anthropic and
 * OpenAI accept). Inline bytes that are not are refused before anything is held or sent.
 */
export function isBase64(text: string): boolean {
  const s = text.replace(/\s+/g, '');
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(s) && s.replace(/=+$/, '').length % 4 !== 1;
}

/** An image given as a URL: a `data:` URL becomes inline bytes, an http(s) URL stays a URL. */
export function imageFromUrl(url: string, detail?: string, param = 'image_url'): HubImage {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  if (!m) {
    if (!/^https?:\/\//i.test(url))
      throw badRequest('image URLs must be http(s) or data: URLs', 'invalid_value', param);
    return { type: 'image', url, ...(detail ? { detail } : {}) };
  }
  if (m[2] && !isBase64(m[3]))
    throw badRequest(`the image data URL in ${param} is not valid base64`, 'invalid_value', param);
  const data = m[2] ? m[3] : Buffer.from(decodeURIComponent(m[3])).toString('base64');
  return { type: 'image', data, mediaType: imageMediaType(data, m[1]), ...(detail ? { detail } : {}) };
}

export const dataUrl = (img: HubImage) => `data:${img.mediaType ?? 'image/png'};base64,${img.data ?? ''}`;

/**
 * The media type of inline image bytes: read from the magic bytes (providers refuse a declared type that
 * does not match), else the declared one with image/jpg normalised.
 */
export function imageMediaType(base64: string, declared = ''): string {
  const head = Buffer.from(base64.slice(0, 24), 'base64');
  if (head[0] === 0xff && head[1] === 0xd8) return 'image/jpeg';
  if (head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) return 'image/png';
  if (head.toString('latin1', 0, 4) === 'GIF8') return 'image/gif';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp';
  const d = declared.toLowerCase();
  return d === 'image/jpg' ? 'image/jpeg' : d || 'image/png';
}

/** The hub error kind an HTTP status stands for, when the body says nothing better. */
export function kindOfStatus(status: number): HubErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 503 || status === 529) return 'overloaded';
  return status >= 500 ? 'server' : 'invalid_request';
}

/** A non-negative integer from an upstream's count field (missing or malformed counts are 0). */
export const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;

/** Adds usage b into a (for formats that report per-chunk counts). */
export function addUsage(a: HubUsage, b: HubUsage): HubUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h,
    reasoning: a.reasoning + b.reasoning,
  };
}

/**
 * A Gemini thoughtSignature carried inside a tool-call id, for clients (OpenAI, Anthropic, Responses) that
 * only echo the id back: `<id>__gs_<signature as base64url>`, which stays within the characters every format
 * allows in ids. Gemini 3 refuses history whose function calls lost their signature.
 */
const SIG_MARK = '__gs_';
export const packCallId = (id: string, signature?: string) =>
  signature ? `${id}${SIG_MARK}${Buffer.from(signature).toString('base64url')}` : id;
export function unpackCallId(packed: string): { id: string; signature?: string } {
  const at = packed.indexOf(SIG_MARK);
  if (at < 0) return { id: packed };
  const sig = Buffer.from(packed.slice(at + SIG_MARK.length), 'base64url').toString();
  return { id: packed.slice(0, at), signature: sig };
}

/** An upstream answer that is not a JSON object: a 502 another channel may do better on. */
export const notAnAnswer = () =>
  new RelayError(
    502,
    'the upstream answered with no JSON object',
    'upstream_error',
    'bad_response',
    null,
    false,
  );
