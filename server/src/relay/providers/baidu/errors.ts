import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError, HubErrorKind } from '../../formats/hub.ts';

type Mapped = { status: number; kind: HubErrorKind };

const AUTH: Mapped = { status: 401, kind: 'authentication' };
const RATE: Mapped = { status: 429, kind: 'rate_limit' };
const QUOTA: Mapped = { status: 429, kind: 'quota' };
const BAD: Mapped = { status: 400, kind: 'invalid_request' };

/** Wenxin's error codes (they come in 200 answers, so the code alone says what went wrong). */
const CODES: Record<number, Mapped> = {
  2: { status: 503, kind: 'overloaded' },
  3: { status: 404, kind: 'not_found' },
  4: RATE,
  6: { status: 403, kind: 'permission' },
  13: AUTH,
  14: AUTH,
  15: { status: 403, kind: 'permission' },
  17: QUOTA,
  18: RATE,
  19: QUOTA,
  100: AUTH,
  110: AUTH,
  111: AUTH,
  336001: BAD,
  336002: BAD,
  336003: BAD,
  336004: { status: 403, kind: 'permission' },
  336005: { status: 404, kind: 'not_found' },
  336006: BAD,
  336007: BAD,
  336100: { status: 503, kind: 'overloaded' },
  336101: BAD,
  336102: BAD,
  336103: BAD,
  336104: BAD,
  336105: BAD,
  336501: RATE,
  336502: RATE,
  336503: RATE,
};

/** The codes that say the access token is no longer good: the cached one must go. */
export const TOKEN_REJECTED = new Set([110, 111]);

/** The error code of a Wenxin answer, or null when it is not an error. */
export function errorCodeOf(body: unknown): number | null {
  const code = (body as { error_code?: unknown } | null)?.error_code;
  return typeof code === 'number' && code !== 0 ? code : null;
}

/** A Wenxin `{error_code, error_msg}` as a hub error; `httpStatus` decides for codes not in the table. */
export function baiduError(code: number | null, message: unknown, httpStatus: number): HubError {
  const known = code === null ? undefined : CODES[code];
  const status = known?.status ?? (httpStatus >= 400 ? httpStatus : 500);
  const text = typeof message === 'string' && message ? message : '';
  return {
    status,
    kind: known?.kind ?? kindOfStatus(status),
    message: text || (code !== null ? `Wenxin error ${code}` : `Wenxin answered status ${status}`),
    code: code === null ? null : String(code),
    param: null,
  };
}

/** A non-2xx Wenxin body as a hub error. */
export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  const msg = body?.error_msg ?? (raw.length < 500 && !raw.trimStart().startsWith('<') ? raw.trim() : '');
  return baiduError(errorCodeOf(body), msg, status);
}
