import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError, HubErrorKind } from '../../formats/hub.ts';

type Mapped = { status: number; kind: HubErrorKind };

const AUTH: Mapped = { status: 401, kind: 'authentication' };
const DENIED: Mapped = { status: 403, kind: 'permission' };
const BAD: Mapped = { status: 400, kind: 'invalid_request' };
const MISSING: Mapped = { status: 404, kind: 'not_found' };
const RATE: Mapped = { status: 429, kind: 'rate_limit' };
const QUOTA: Mapped = { status: 429, kind: 'quota' };

/** The v3 API's error codes (`code` other than 200, in a 200 answer or an error body). */
const CODES: Record<number, Mapped> = {
  1000: AUTH,
  1001: AUTH,
  1002: AUTH,
  1003: AUTH,
  1004: AUTH,
  1110: DENIED,
  1111: DENIED,
  1112: DENIED,
  1113: QUOTA,
  1120: DENIED,
  1210: BAD,
  1211: MISSING,
  1212: BAD,
  1213: BAD,
  1214: BAD,
  1215: BAD,
  1220: DENIED,
  1221: MISSING,
  1222: MISSING,
  1231: BAD,
  1261: BAD,
  1301: BAD,
  1302: RATE,
  1303: RATE,
  1304: QUOTA,
  1305: RATE,
};

/** A Zhipu `{code, msg}` as a hub error; `httpStatus` (0 inside a 200 answer) decides for unknown codes. */
export function zhipuError(code: unknown, message: unknown, httpStatus: number): HubError {
  const n = typeof code === 'number' ? code : Number(code);
  const known = Number.isInteger(n) ? CODES[n] : undefined;
  const status = known?.status ?? (httpStatus >= 400 ? httpStatus : 500);
  const text = typeof message === 'string' && message ? message : '';
  const named = code !== undefined && code !== null && code !== '';
  return {
    status,
    kind: known?.kind ?? kindOfStatus(status),
    message: text || (named ? `Zhipu error ${code}` : `Zhipu answered status ${status}`),
    code: named ? String(code) : null,
    param: null,
  };
}

/** An answer that is an error: a code other than 200, or success false. */
export const isErrorAnswer = (o: Record<string, unknown>) =>
  (o.code !== undefined && o.code !== 200) || o.success === false;

/** A non-2xx Zhipu body as a hub error. */
export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  const msg =
    body?.msg ?? body?.message ?? (raw.length < 500 && !raw.trimStart().startsWith('<') ? raw.trim() : '');
  return zhipuError(body?.code, msg, status);
}
