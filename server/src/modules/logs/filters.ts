import type { SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';

/** Query strings arrive as text; an empty value means "not set". */
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const optInt = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(blank, z.coerce.number().int().min(min).max(max).optional());
const optText = z.preprocess(blank, z.string().trim().max(191).optional());

/** Filters shared by the list and stat endpoints. */
export const logFilterSchema = z.object({
  type: optInt(0, 5),
  username: optText,
  token_name: optText,
  model_name: optText,
  group: optText,
  channel: optInt(0),
  start_timestamp: optInt(0),
  end_timestamp: optInt(0),
});

/**
 * A page is `p` (1-based) and `page_size`; with a cursor (`before_time` + `before_id`, the `created_at` and
 * `id` of a row already shown) `p` counts pages after that row instead of from the newest row, so a deep page
 * walks only the index entries of that page, and rows written meanwhile do not shift it.
 */
export const logPageSchema = logFilterSchema
  .extend({
    p: z.preprocess(blank, z.coerce.number().int().max(10_000_000).optional()),
    page_size: z.preprocess(blank, z.coerce.number().int().min(1).max(100).optional()),
    before_time: optInt(0),
    before_id: optInt(1),
  })
  .refine((q) => (q.before_time === undefined) === (q.before_id === undefined), {
    message: 'before_time and before_id go together',
    path: ['before_id'],
  });

/** The row a page starts after, in the list's order (newest first by `created_at`, then `id`). */
export interface LogCursor {
  before_time: number;
  before_id: number;
}

export type LogFilter = z.infer<typeof logFilterSchema> & { user_id?: number };

type LogQuery<O> = SelectQueryBuilder<Database, 'logs', O>;

/**
 * Applies every filter that is set. `withTime: false` leaves out the time range (the rpm/tpm window sets its
 * own) and `withType: false` leaves out the type (stats count consumption only).
 */
export function applyLogFilter<O>(
  q: LogQuery<O>,
  f: LogFilter,
  opts: { withTime?: boolean; withType?: boolean } = {},
): LogQuery<O> {
  const { withTime = true, withType = true } = opts;
  if (f.user_id !== undefined) q = q.where('user_id', '=', f.user_id);
  if (withType && f.type) q = q.where('type', '=', f.type);
  if (f.username) q = q.where('username', '=', f.username);
  if (f.token_name) q = q.where('token_name', '=', f.token_name);
  if (f.model_name) q = q.where('model_name', '=', f.model_name);
  if (f.group) q = q.where('group', '=', f.group);
  if (f.channel) q = q.where('channel_id', '=', f.channel);
  if (withTime && f.start_timestamp) q = q.where('created_at', '>=', f.start_timestamp);
  if (withTime && f.end_timestamp) q = q.where('created_at', '<=', f.end_timestamp);
  return q;
}
