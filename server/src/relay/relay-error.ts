import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { friendlyClientError } from '../infra/client-error.ts';
import { ApiError } from '../infra/envelope.ts';

/**
 * Relay errors in OpenAI's shape: `{error:{message,type,param,code}}`.
 * `local` marks gateway-side refusals (bad input, auth, quota): never retried, never a reason to disable a channel.
 */
export class RelayError extends Error {
  /** Headers the error reply carries (e.g. retry-after), whatever protocol renders the body. */
  headers?: Record<string, string>;
  /**
   * What the client's message leaves out (an endpoint's own answer, its address): for the server log, the
   * channel's status reason and the console's channel test, never for the API caller.
   */
  detail?: string;

  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly local = true,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'invalid_request', param: string | null = null) =>
  new RelayError(400, message, 'invalid_request_error', code, param);

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Any error thrown while relaying, as the status and OpenAI-shaped body the client gets (5xx logged). */
export function relayFailure(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { status: number; body: OpenAIErrorBody } {
  if (err instanceof RelayError) {
    const e = callersView(err);
    return { status: e.status, body: errorBody(e, requestId) };
  }
  if (err instanceof ApiError) {
    const e = new RelayError(err.status, err.message, 'invalid_request_error', 'unauthorized');
    return { status: err.status, body: errorBody(e, requestId) };
  }
  const status = (err as FastifyError).statusCode ?? 500;
  if (status >= 500) {
    log.error({ err }, 'relay error');
    const e = new RelayError(500, 'internal error', 'new_api_error', 'internal_error');
    return { status: 500, body: errorBody(e, requestId) };
  }
  const code =
    status === 413 ? 'request_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
  const e = new RelayError(status, friendlyClientError(err as FastifyError), 'invalid_request_error', code);
  return { status, body: errorBody(e, requestId) };
}

/**
 * The error a caller sees for an upstream failure. An upstream 401 refuses the gateway's own key, not the
 * caller's token: passing on the provider's "Incorrect API key provided" would send the caller after the wrong
 * key, so they get the gateway's own 503 (retryable; the refused key has left rotation) and the provider's text
 * stays in the server log and the key's disable reason.
 */
export function callersView(err: RelayError): RelayError {
  if (err.local || err.status !== 401) return err;
  return new RelayError(
    503,
    'the upstream provider refused the credentials of the channel that served this request; the gateway has taken that key out of rotation where it could. Try again; if it persists, tell the administrator',
    'upstream_error',
    'upstream_auth_failed',
    null,
    false,
  );
}

/** The status a thrown error gives the client: its own (RelayError, ApiError, Fastify's errors), else 500. */
export const failureStatus = (err: unknown): number =>
  (err as { status?: number } | undefined)?.status ??
  (err as { statusCode?: number } | undefined)?.statusCode ??
  500;

export function errorBody(err: RelayError, requestId: string): OpenAIErrorBody {
  return {
    error: {
      message: `${err.message} (request id: ${requestId})`,
      type: err.type,
      param: err.param,
      code: err.code,
    },
  };
}

/** Removes the channel's key and base URL from an upstream message before a client sees it. */
export function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  return out;
}

/**
 * Builds the error an upstream's non-2xx body describes: the OpenAI error object when there is one,
 * else the first message-looking field, else the bare status.
 */
export function upstreamError(status: number, raw: string, secrets: string[]): RelayError {
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    body = null;
  }
  const e = body && typeof body === 'object' ? body.error : undefined;
  let message = '';
  let type = 'upstream_error';
  let code: string | null = 'bad_response_status_code';
  let param: string | null = String(status);
  if (e && typeof e === 'object') {
    message = String(e.message ?? '');
    if (e.type) type = String(e.type);
    code = e.code == null ? null : String(e.code);
    param = e.param == null ? null : String(e.param);
  } else if (body && typeof body === 'object') {
    const cand = [
      typeof e === 'string' ? e : undefined,
      body.message,
      body.msg,
      body.err,
      body.error_msg,
      body.header?.message,
      body.errors?.[0]?.message,
    ];
    message = String(cand.find((c) => typeof c === 'string' && c) ?? '');
  } else if (raw.trim() && raw.length < 500) {
    message = raw.trim();
  }
  if (!message) message = `bad response status code ${status}`;
  return new RelayError(status, scrub(message, secrets), type, code, param, false);
}
