import type { z } from 'zod';
import { ApiError } from '../../infra/envelope.ts';

/**
 * Like infra/validate's parseOr400, but the account rules carry complete sentences ("password length must
 * not be less than 8"), so the field name is only prefixed when the message does not already name it.
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input))) {
    throw new ApiError('request body must be a JSON object');
  }
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path?.length ? String(issue.path[issue.path.length - 1]) : '';
  const message = issue?.message ?? 'invalid request';
  throw new ApiError(field && !message.includes(field) ? `${issue.path.join('.')}: ${message}` : message);
}
