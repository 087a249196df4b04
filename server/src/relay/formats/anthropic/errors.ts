import { decodeError as chatDecodeError } from '../chat/errors.ts';
import { kindOfStatus, parseJsonOrNull, sseEvent } from '../common.ts';
import type { HubError, HubErrorKind } from '../hub.ts';
import { isObj } from './check.ts';

/** Each hub error kind as Anthropic's documented error type and status. */
const KINDS: Record<HubErrorKind, { type: string; status: number }> = {
  invalid_request: { type: 'invalid_request_error', status: 400 },
  authentication: { type: 'authentication_error', status: 401 },
  quota: { type: 'billing_error', status: 402 },
  permission: { type: 'permission_error', status: 403 },
  not_found: { type: 'not_found_error', status: 404 },
  request_too_large: { type: 'request_too_large', status: 413 },
  rate_limit: { type: 'rate_limit_error', status: 429 },
  server: { type: 'api_error', status: 500 },
  timeout: { type: 'timeout_error', status: 504 },
  overloaded: { type: 'overloaded_error', status: 529 },
};

/** Anthropic's error types as hub kinds. */
const NAMED: Record<string, HubErrorKind> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  billing_error: 'quota',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  api_error: 'server',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
};

/**
 * Anthropic's `{type:"error", error:{type, message}}` error object as a hub error. `status` is the HTTP
 * status, or 0 for an `error` event inside a 200 stream (then the type decides the status too).
 */
export function errorOf(e: Record<string, unknown>, status: number): HubError {
  const type = typeof e.type === 'string' ? e.type : '';
  const kind = NAMED[type] ?? (status >= 400 ? kindOfStatus(status) : 'server');
  return {
    status: status >= 400 ? status : KINDS[kind].status,
    kind,
    message:
      typeof e.message === 'string' && e.message ? e.message : `upstream error${type ? ` (${type})` : ''}`,
    code: type || null,
    param: null,
  };
}

/** An upstream's non-2xx body: Anthropic's error object, else whatever an OpenAI-shaped reading finds. */
export function decodeError(status: number, raw: string): HubError {
  const body = parseJsonOrNull(raw);
  if (isObj(body) && body.type === 'error' && isObj(body.error)) return errorOf(body.error, status);
  return chatDecodeError(status, raw);
}

/** A hub error as Anthropic's status and `{type:"error", error:{type, message}, request_id}` body. */
export function encodeError(err: HubError, requestId: string): { status: number; body: unknown } {
  const k = KINDS[err.kind] ?? KINDS.server;
  const status = err.status >= 400 && err.status <= 599 ? err.status : k.status;
  return { status, body: errorBody(err, requestId) };
}

export function errorBody(err: HubError, requestId: string) {
  const k = KINDS[err.kind] ?? KINDS.server;
  return {
    type: 'error',
    error: { type: k.type, message: `${err.message} (request id: ${requestId})` },
    request_id: requestId,
  };
}

/** The `error` event that ends a Messages stream after a failure mid-stream. */
export const encodeStreamError = (err: HubError, requestId: string): string =>
  sseEvent('error', encodeError(err, requestId).body);
