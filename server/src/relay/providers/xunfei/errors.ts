import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError, HubErrorKind } from '../../formats/hub.ts';

type Mapped = { status: number; kind: HubErrorKind };

const BAD: Mapped = { status: 400, kind: 'invalid_request' };
const AUTH: Mapped = { status: 401, kind: 'authentication' };
const DENIED: Mapped = { status: 403, kind: 'permission' };
const RATE: Mapped = { status: 429, kind: 'rate_limit' };
const BUSY: Mapped = { status: 503, kind: 'overloaded' };
const BROKEN: Mapped = { status: 502, kind: 'server' };

/** Spark's `header.code` values (iFlytek's service error list); 0 is success. */
const CODES: Record<number, Mapped> = {
  10003: BAD,
  10004: BAD,
  10005: BAD,
  10006: RATE, // the same user is already connected
  10007: RATE, // the previous question is still being answered
  10008: BUSY,
  10009: BROKEN,
  10010: BROKEN,
  10011: BROKEN,
  10012: { status: 500, kind: 'server' },
  10013: BAD, // the input failed content review
  10014: BAD, // the output failed content review
  10015: DENIED, // appid blacklisted
  10016: DENIED, // appid not licensed for this version, or out of tokens
  10019: BAD,
  10021: BAD,
  10110: BUSY,
  10163: BAD,
  10222: BROKEN,
  10907: { status: 400, kind: 'request_too_large' },
  11200: AUTH, // no licence for this function, or over the licensed volume
  11201: RATE, // daily limit
  11202: RATE, // per-second limit
  11203: RATE, // concurrency limit
};

/** A Spark `header {code, message}` as a hub error; `httpStatus` (0 in a frame) decides for unknown codes. */
export function sparkError(code: number | null, message: unknown, httpStatus: number): HubError {
  const known = code === null ? undefined : CODES[code];
  const status = known?.status ?? (httpStatus >= 400 ? httpStatus : 500);
  const text = typeof message === 'string' && message ? message : '';
  return {
    status,
    kind: known?.kind ?? kindOfStatus(status),
    message: text || (code !== null ? `Spark error ${code}` : `Spark answered status ${status}`),
    code: code === null ? null : String(code),
    param: null,
  };
}

/** The error code of a frame's header, or null when the frame is not an error. */
export function frameCode(frame: unknown): number | null {
  const code = (frame as { header?: { code?: unknown } } | null)?.header?.code;
  return typeof code === 'number' && code !== 0 ? code : null;
}

/** A failed handshake's body (`{"message": ...}`) as a hub error. */
export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  const msg =
    body?.message ??
    body?.header?.message ??
    (raw.length < 500 && !raw.trimStart().startsWith('<') ? raw.trim() : '');
  return sparkError(frameCode(body), msg, status);
}
