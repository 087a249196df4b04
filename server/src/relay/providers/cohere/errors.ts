import { decodeError as chatDecodeError } from '../../formats/chat/errors.ts';
import type { HubError } from '../../formats/hub.ts';

/**
 * Cohere's error body (`{id, message}`) as a hub error. Cohere answers an invalid key with its own 498 and an
 * account without credit with 402: the 401 and out-of-quota 429 every client understands.
 */
export function decodeError(status: number, raw: string): HubError {
  if (status === 402) return { ...chatDecodeError(429, raw), kind: 'quota' };
  return chatDecodeError(status === 498 ? 401 : status, raw);
}

/** A generation Cohere ended with finish_reason ERROR or TIMEOUT (in a 200 answer or at a stream's end). */
export const finishError = (reason: unknown, detail: unknown): HubError | null =>
  reason === 'ERROR' || reason === 'TIMEOUT' || (typeof detail === 'string' && detail)
    ? {
        status: reason === 'TIMEOUT' ? 504 : 502,
        kind: reason === 'TIMEOUT' ? 'timeout' : 'server',
        message: typeof detail === 'string' && detail ? detail : `Cohere stopped the generation (${reason})`,
      }
    : null;
