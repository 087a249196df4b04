import { encodeError, errorOf } from '../chat/errors.ts';
import { sseEvent } from '../common.ts';
import type { HubError } from '../hub.ts';

/**
 * Responses errors are OpenAI's: `{error:{message,type,param,code}}` bodies with the usual statuses, the same
 * as chat completions (insufficient_quota is a quota error, not a rate limit). Inside a stream they come as an
 * `error` event and a `response.failed` whose response carries `error: {code, message}`.
 */
export { decodeError, encodeError, errorOf } from '../chat/errors.ts';

/** Codes a failed Response carries that say the request itself was at fault. */
const REQUEST_CODES = new Set([
  'context_length_exceeded',
  'invalid_prompt',
  'invalid_encrypted_content',
  'invalid_image',
  'invalid_image_format',
  'invalid_base64_image',
  'invalid_image_url',
  'image_too_large',
  'image_too_small',
  'image_parse_error',
  'image_content_policy_violation',
  'invalid_image_mode',
  'image_file_too_large',
  'unsupported_image_media_type',
  'empty_image_file',
  'failed_to_download_image',
  'image_file_not_found',
]);

/** An error met inside a 200 stream (an `error` event, or a failed Response's error) as a hub error. */
export function streamErrorOf(e: Record<string, unknown>): HubError {
  const code = typeof e.code === 'string' ? e.code : '';
  if (REQUEST_CODES.has(code)) return errorOf(e, 400);
  return errorOf(e, 0);
}

/** The `error` event that ends a Responses stream after a failure mid-stream (its fields at the top level). */
export function encodeStreamError(err: HubError, requestId: string): string {
  const { body } = encodeError(err, requestId);
  const e = (body as { error?: Record<string, unknown> }).error ?? {};
  return sseEvent('error', {
    type: 'error',
    code: e.code ?? null,
    message: e.message,
    param: e.param ?? null,
  });
}
