import { kindOfStatus, parseJsonOrNull, sseData } from '../common.ts';
import type { HubError, HubErrorKind } from '../hub.ts';
import { isObj } from './check.ts';

/** Each hub error kind as OpenAI's error type, default code and status. */
const KINDS: Record<HubErrorKind, { type: string; code: string | null; status: number }> = {
  invalid_request: { type: 'invalid_request_error', code: null, status: 400 },
  authentication: { type: 'authentication_error', code: 'invalid_api_key', status: 401 },
  permission: { type: 'permission_error', code: null, status: 403 },
  not_found: { type: 'not_found_error', code: null, status: 404 },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large', status: 413 },
  rate_limit: { type: 'rate_limit_error', code: 'rate_limit_exceeded', status: 429 },
  quota: { type: 'insufficient_quota', code: 'insufficient_quota', status: 429 },
  overloaded: { type: 'server_error', code: 'overloaded', status: 503 },
  timeout: { type: 'timeout_error', code: 'timeout', status: 504 },
  server: { type: 'server_error', code: null, status: 500 },
};

/** Error types and codes OpenAI and the compatible servers use, when they say more than the status. */
const NAMED: Record<string, HubErrorKind> = {
  insufficient_quota: 'quota',
  rate_limit_exceeded: 'rate_limit',
  rate_limit_error: 'rate_limit',
  requests: 'rate_limit',
  tokens: 'rate_limit',
  invalid_api_key: 'authentication',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  model_not_found: 'not_found',
  overloaded: 'overloaded',
  overloaded_error: 'overloaded',
  timeout: 'timeout',
  timeout_error: 'timeout',
  server_error: 'server',
  invalid_request_error: 'invalid_request',
};

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/**
 * An OpenAI error object (`{message,type,param,code}`) as a hub error. `status` is the HTTP status, or 0 for
 * an error met inside a 200 stream: then the type and code decide the kind. An out-of-quota 429 is `quota`,
 * not a rate limit (retrying it elsewhere is pointless).
 */
export function errorOf(e: Record<string, unknown>, status: number): HubError {
  const type = text(e.type);
  const code = text(e.code);
  const named = NAMED[code ?? ''] ?? NAMED[type ?? ''];
  const kind = named === 'quota' || !(status >= 400) ? (named ?? 'server') : kindOfStatus(status);
  return {
    status: status >= 400 ? status : KINDS[kind].status,
    kind,
    message: text(e.message) || `upstream error${type ? ` (${type})` : ''}`,
    code,
    param: text(e.param),
  };
}

/** An upstream's non-2xx body: OpenAI's error object, a bare message field, or the text itself. */
export function decodeError(status: number, raw: string): HubError {
  let body = parseJsonOrNull(raw);
  if (Array.isArray(body)) body = body[0]; // Gemini's OpenAI-compatible endpoint wraps it in an array
  if (isObj(body) && isObj(body.error)) return errorOf(body.error, status);
  const message = isObj(body)
    ? [body.error, body.message, body.detail, body.msg].find((m) => typeof m === 'string' && m)
    : raw.trim().length > 0 && raw.length < 500 && !raw.trimStart().startsWith('<')
      ? raw.trim()
      : undefined;
  const kind = kindOfStatus(status);
  return {
    status,
    kind,
    message: typeof message === 'string' ? message : `upstream answered status ${status}`,
    code: null,
    param: null,
  };
}

/** A hub error as OpenAI's status and `{error:{message,type,param,code}}` body. */
export function encodeError(err: HubError, requestId: string): { status: number; body: unknown } {
  const k = KINDS[err.kind] ?? KINDS.server;
  const status = err.status >= 400 && err.status <= 599 ? err.status : k.status;
  return {
    status,
    body: {
      error: {
        message: `${err.message} (request id: ${requestId})`,
        type: k.type,
        param: err.param ?? null,
        code: err.code ?? k.code,
      },
    },
  };
}

/** The data frame that ends a chat stream after a failure mid-stream: the error object, as OpenAI sends it. */
export const encodeStreamError = (err: HubError, requestId: string): string =>
  sseData(encodeError(err, requestId).body);

/** An OpenAI-compatible host's error object inside a 2xx answer. */
export const errorInAnswer = (json: unknown): boolean => {
  const error = (json as { error?: unknown } | null)?.error;
  return Boolean(error && typeof error === 'object' && (error as { type?: unknown }).type);
};
