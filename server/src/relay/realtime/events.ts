import type { FastifyBaseLogger } from 'fastify';
import { relayFailure } from '../relay-error.ts';

/** Close code for a session the gateway ends over the client's request or account (OpenAI uses 4000). */
export const CLIENT_ERROR_CLOSE = 4000;
/** Close code for a session the gateway or the upstream could not serve. */
export const SERVER_ERROR_CLOSE = 1011;

/** An `error` server event as OpenAI sends it: `{type:"error", event_id, error:{type, code, message, param, event_id}}`. */
export interface RealtimeErrorEvent {
  type: 'error';
  event_id: string;
  error: {
    type: string;
    code: string | null;
    message: string;
    param: string | null;
    event_id: string | null;
  };
}

/**
 * A relay failure as an error event plus the close code and reason that end the session: OpenAI's
 * `type.code` reason, 4000 for the client's side, 1011 for the gateway's or the upstream's.
 */
export function failureEvent(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { event: RealtimeErrorEvent; code: number; reason: string } {
  const { status, body } = relayFailure(err, requestId, log);
  const e = body.error;
  return {
    event: errorEvent(requestId, e.type, e.code, e.message, e.param),
    code: status >= 500 ? SERVER_ERROR_CLOSE : CLIENT_ERROR_CLOSE,
    reason: closeReason(`${e.type}.${e.code ?? status}`),
  };
}

/** An error event; its id is `evt_` and `id` (the request id, and a count when a session sends several). */
export function errorEvent(
  id: string,
  type: string,
  code: string | null,
  message: string,
  param: string | null = null,
  clientEventId: string | null = null,
): RealtimeErrorEvent {
  return {
    type: 'error',
    event_id: `evt_${id}`,
    error: { type, code, message, param, event_id: clientEventId },
  };
}

/** A close reason fits in 123 bytes of UTF-8. */
export function closeReason(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= 123
    ? text
    : bytes
        .subarray(0, 123)
        .toString('utf8')
        .replace(/\uFFFD+$/, '');
}

/** The close code to pass on to the other side: codes a peer may not send become a normal or an error close. */
export function relayableCode(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1000 || code === 1001 || code === 1003 || (code >= 1007 && code <= 1014)) return code;
  if (code >= 3000 && code <= 4999) return code;
  return SERVER_ERROR_CLOSE;
}
