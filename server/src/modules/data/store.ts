import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';

export interface QuotaDataRow {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

export interface DataRange {
  start: number;
  end: number;
}

const num = (v: unknown) => Number(v ?? 0);

/** Raw hourly rows of one user (by id, or by username for the admin filter), oldest first. */
export async function listUserData(ctx: AppContext, who: { userId?: number; username?: string }, range: DataRange): Promise<QuotaDataRow[]> {
  let q = ctx.db.db.selectFrom('quota_data').selectAll();
  if (who.userId !== undefined) q = q.where('user_id', '=', who.userId);
  if (who.username !== undefined) q = q.where('username', '=', who.username);
  if (range.start > 0) q = q.where('created_at', '>=', range.start);
  if (range.end > 0) q = q.where('created_at', '<=', range.end);
  const rows = await q.orderBy('created_at').orderBy('model_name').execute();
  return rows.map((r) => ({ ...r, id: num(r.id), user_id: num(r.user_id), created_at: num(r.created_at), token_used: num(r.token_used), count: num(r.count), quota: num(r.quota) }));
}

/**
 * Every user's rows summed per model and hour (user fields left empty), oldest first: from `log_hourly` (a row
 * per model, channel and hour) from its first bucket on, and from `quota_data` before it (history exported before
 * `log_hourly` existed, whose log rows may be gone). Both are rebuilt by the same export from the same rows.
 */
export async function listAllData(ctx: AppContext, range: DataRange): Promise<QuotaDataRow[]> {
  const first = await ctx.logDb.db
    .selectFrom('log_hourly')
    .select((eb) => eb.fn.min('created_at').as('t'))
    .executeTakeFirst();
  const from = first?.t === null || first?.t === undefined ? Number.POSITIVE_INFINITY : Number(first.t);
  const end = range.end > 0 ? range.end : Number.POSITIVE_INFINITY;
  const [older, hourly] = await Promise.all([
    range.start < from ? summedQuotaData(ctx, range.start, Math.min(end, from - 1)) : [],
    end >= from ? hourlyData(ctx, Math.max(range.start, from), end) : [],
  ]);
  return [...older, ...hourly];
}

const allUsersRow = (r: { model_name: string; created_at: unknown; token_used: unknown; count: unknown; quota: unknown }): QuotaDataRow => ({
  id: 0,
  user_id: 0,
  username: '',
  model_name: r.model_name,
  created_at: num(r.created_at),
  token_used: num(r.token_used),
  count: num(r.count),
  quota: num(r.quota),
});

/** Buckets from `start` to `end` inclusive (0 / infinity: unbounded). */
async function hourlyData(ctx: AppContext, start: number, end: number): Promise<QuotaDataRow[]> {
  // A bucket per channel: summed over them.
  let q = ctx.logDb.db
    .selectFrom('log_hourly')
    .select((eb) => [
      'model_name',
      'created_at',
      eb.fn.sum('count').as('count'),
      eb.fn.sum('quota').as('quota'),
      eb.fn.sum(sql<number>`prompt_tokens + completion_tokens`).as('token_used'),
    ]);
  if (start > 0) q = q.where('created_at', '>=', start);
  if (Number.isFinite(end)) q = q.where('created_at', '<=', end);
  const rows = await q.groupBy(['created_at', 'model_name']).orderBy('created_at').orderBy('model_name').execute();
  return rows.map(allUsersRow);
}

async function summedQuotaData(ctx: AppContext, start: number, end: number): Promise<QuotaDataRow[]> {
  let q = ctx.db.db
    .selectFrom('quota_data')
    .select((eb) => ['model_name', 'created_at', eb.fn.sum('token_used').as('token_used'), eb.fn.sum('count').as('count'), eb.fn.sum('quota').as('quota')]);
  if (start > 0) q = q.where('created_at', '>=', start);
  if (Number.isFinite(end)) q = q.where('created_at', '<=', end);
  const rows = await q.groupBy(['model_name', 'created_at']).orderBy('created_at').orderBy('model_name').execute();
  return rows.map(allUsersRow);
}
