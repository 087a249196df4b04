import { isObj } from '../../formats/chat/check.ts';
import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError } from '../../formats/hub.ts';

/** Dify's error codes that say more than their status (quota errors come as 400). */
const CODES: Record<string, Pick<HubError, 'status' | 'kind'>> = {
  unauthorized: { status: 401, kind: 'authentication' },
  provider_quota_exceeded: { status: 429, kind: 'quota' },
  too_many_requests: { status: 429, kind: 'rate_limit' },
};

/** A Dify error (`{status, code, message}`, an HTTP error body or a stream's error event) as a hub error. */
export function difyError(e: Record<string, unknown>, httpStatus: number): HubError {
  const code = typeof e.code === 'string' ? e.code : null;
  const given = typeof e.status === 'number' && e.status >= 400 ? e.status : httpStatus;
  const status = given >= 400 ? given : 500;
  const known = code ? CODES[code] : undefined;
  return {
    status: known?.status ?? status,
    kind: known?.kind ?? kindOfStatus(status),
    message: typeof e.message === 'string' && e.message ? e.message : `Dify answered status ${status}`,
    code,
  };
}

export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  return difyError(isObj(body) ? body : {}, status);
}
