import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError, HubErrorKind } from '../../formats/hub.ts';

/** DashScope's error codes whose meaning the HTTP status does not carry (Arrearage comes as a 400). */
const CODES: Record<string, { status: number; kind: HubErrorKind }> = {
  InvalidApiKey: { status: 401, kind: 'authentication' },
  Arrearage: { status: 429, kind: 'quota' },
  'Throttling.AllocationQuota': { status: 429, kind: 'rate_limit' },
  DataInspectionFailed: { status: 400, kind: 'invalid_request' },
  'DataInspectionFailed.TextModeration': { status: 400, kind: 'invalid_request' },
  ModelNotFound: { status: 404, kind: 'not_found' },
  'Model.AccessDenied': { status: 403, kind: 'permission' },
  RequestTimeOut: { status: 504, kind: 'timeout' },
  InternalError: { status: 500, kind: 'server' },
};

/** Code families: `Throttling.RateQuota`, `InvalidParameter.xxx`, `AccessDenied.Unpurchased` ... */
const PREFIXES: Array<[string, { status: number; kind: HubErrorKind }]> = [
  ['Throttling', { status: 429, kind: 'rate_limit' }],
  ['InvalidParameter', { status: 400, kind: 'invalid_request' }],
  ['AccessDenied', { status: 403, kind: 'permission' }],
  ['InternalError', { status: 500, kind: 'server' }],
];

/**
 * A DashScope error (`{code, message, request_id}`, a task's `output.code`/`message`, or an SSE error frame)
 * as a hub error: the code decides, else the HTTP status (0 when it came inside a 200 answer).
 */
export function aliError(code: unknown, message: unknown, httpStatus: number): HubError {
  const c = typeof code === 'string' ? code : '';
  const known = CODES[c] ?? PREFIXES.find(([p]) => c === p || c.startsWith(`${p}.`))?.[1];
  const status = known?.status ?? (httpStatus >= 400 ? httpStatus : 500);
  const text = typeof message === 'string' && message ? message : '';
  return {
    status,
    kind: known?.kind ?? kindOfStatus(status),
    message: text || (c ? `DashScope error ${c}` : `DashScope answered status ${status}`),
    code: c || null,
    param: null,
  };
}

/** A non-2xx DashScope body as a hub error. */
export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  const o = body && typeof body === 'object' ? body : {};
  return aliError(o.code, o.message ?? (raw.length < 500 ? raw.trim() : ''), status);
}
