import { isObj } from '../../formats/chat/check.ts';
import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError } from '../../formats/hub.ts';

/** Coze's codes with an HTTP meaning (as coze-js maps them); 700012006 is an invalid access token. */
const BY_CODE: Record<number, number> = {
  4000: 400,
  4100: 401,
  700012006: 401,
  4101: 403,
  4200: 404,
  4013: 429,
};

/**
 * A Coze error (`{code, msg}` in a body, a stream's error event or a failed chat's last_error) as a hub
 * error. Coze answers most failures with HTTP 200 and a code: the code decides the status.
 */
export function cozeError(e: Record<string, unknown>, httpStatus: number): HubError {
  const code = typeof e.code === 'number' || typeof e.code === 'string' ? Number(e.code) : 0;
  const status = BY_CODE[code] ?? (httpStatus >= 400 ? httpStatus : code >= 4000 && code < 5000 ? 400 : 502);
  const msg = typeof e.msg === 'string' && e.msg ? e.msg : typeof e.message === 'string' ? e.message : '';
  return {
    status,
    kind: kindOfStatus(status),
    message: msg || `Coze answered code ${code || status}`,
    code: code ? String(code) : null,
  };
}

export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  return cozeError(isObj(body) ? body : {}, status);
}
