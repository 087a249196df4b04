import type { z } from 'zod';
import { ApiError } from './envelope.ts';

/** Parses a request body or query with a zod schema; the first problem becomes a 400 with a readable message. */
export function parseOr400<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue?.path?.length ? `${issue.path.join('.')}: ` : '';
  throw new ApiError(`${where}${issue?.message ?? 'invalid request'}`);
}
