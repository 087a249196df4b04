import { kindOfStatus, parseJsonOrNull, sseData } from '../common.ts';
import type { HubError, HubErrorKind } from '../hub.ts';
import { isObj } from './check.ts';

/** Google's canonical status names, and the hub kind each stands for. */
const KIND_OF_NAME: Record<string, HubErrorKind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
  INTERNAL: 'server',
  UNKNOWN: 'server',
};

/** Each hub kind as Google's status name and default HTTP status. */
const NAME_OF_KIND: Record<HubErrorKind, { name: string; status: number }> = {
  invalid_request: { name: 'INVALID_ARGUMENT', status: 400 },
  authentication: { name: 'UNAUTHENTICATED', status: 401 },
  permission: { name: 'PERMISSION_DENIED', status: 403 },
  not_found: { name: 'NOT_FOUND', status: 404 },
  request_too_large: { name: 'INVALID_ARGUMENT', status: 413 },
  rate_limit: { name: 'RESOURCE_EXHAUSTED', status: 429 },
  quota: { name: 'RESOURCE_EXHAUSTED', status: 429 },
  overloaded: { name: 'UNAVAILABLE', status: 503 },
  timeout: { name: 'DEADLINE_EXCEEDED', status: 504 },
  server: { name: 'INTERNAL', status: 500 },
};

/**
 * Google's error object (`{code, message, status, details}`) as a hub error. `httpStatus` is 0 for an error
 * met inside a 200 stream: then the object's code is the status. An invalid API key comes as 400
 * INVALID_ARGUMENT with reason API_KEY_INVALID: it is an authentication error.
 */
export function errorOf(e: Record<string, unknown>, httpStatus: number): HubError {
  const code = typeof e.code === 'number' ? e.code : 0;
  const status = httpStatus >= 400 ? httpStatus : code >= 400 && code <= 599 ? code : 500;
  const name = typeof e.status === 'string' ? e.status : null;
  const details = Array.isArray(e.details) ? e.details : [];
  const badKey = details.some((d) => isObj(d) && d.reason === 'API_KEY_INVALID');
  const kind = badKey ? 'authentication' : (KIND_OF_NAME[name ?? ''] ?? kindOfStatus(status));
  return {
    status,
    kind,
    message:
      typeof e.message === 'string' && e.message ? e.message : `upstream error${name ? ` (${name})` : ''}`,
    code: name,
    param: null,
  };
}

/** An upstream's non-2xx body: Google's error object (also inside a one-element array), or the text. */
export function decodeError(status: number, raw: string): HubError {
  let body = parseJsonOrNull(raw);
  if (Array.isArray(body)) body = body[0];
  if (isObj(body) && isObj(body.error)) return errorOf(body.error, status);
  const text = raw.trim();
  const message =
    isObj(body) && typeof body.message === 'string'
      ? body.message
      : text && text.length < 500 && !text.startsWith('<')
        ? text
        : `upstream answered status ${status}`;
  return { status, kind: kindOfStatus(status), message, code: null, param: null };
}

/** Google's status name for a hub error. */
export const statusName = (err: HubError) => (NAME_OF_KIND[err.kind] ?? NAME_OF_KIND.server).name;

/** A hub error as Google's status and `{error:{code, message, status}}` body. */
export function encodeError(err: HubError, requestId: string): { status: number; body: unknown } {
  const k = NAME_OF_KIND[err.kind] ?? NAME_OF_KIND.server;
  const status = err.status >= 400 && err.status <= 599 ? err.status : k.status;
  return {
    status,
    body: { error: { code: status, message: `${err.message} (request id: ${requestId})`, status: k.name } },
  };
}

/** The data frame that ends a Gemini stream after a failure mid-stream: Google's error object. */
export const encodeStreamError = (err: HubError, requestId: string): string =>
  sseData(encodeError(err, requestId).body);
