import { LogType } from '@modelgate/shared';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { readHourlyMark } from './mark.ts';
import type { DataRange, QuotaDataRow } from './store.ts';

const HOUR = 3600;
/** Past this many unexported rows (the export is off or failing) the log is not summed on every page load. */
const MAX_UNEXPORTED = 250_000;

const bucket = sql<number>`(created_at - (created_at % ${sql.lit(HOUR)}))`;

/**
 * The usage log's consumption rows the hourly export has not summed yet (above its mark), as hourly rows per
 * model, so the dashboard is current instead of up to DataExportInterval minutes behind the Account card and
 * the margin panel. Before the first export, only rows after the newest existing bucket count (imported history
 * may already sit in quota_data). Empty when the export is too far behind to sum the log on a page load.
 */
export async function unexportedRows(
  ctx: AppContext,
  who: { userId?: number; username?: string },
  range: DataRange,
): Promise<QuotaDataRow[]> {
  const logDb = ctx.logDb.db;
  const [mark, top] = await Promise.all([
    readHourlyMark(logDb),
    logDb.selectFrom('logs_extent').select('max_id as id').executeTakeFirst(),
  ]);
  const lastId = mark?.lastId ?? 0;
  if (Number(top?.id ?? 0) - lastId > MAX_UNEXPORTED) return [];
  let after = range.start;
  if (!mark) {
    const newest = await ctx.db.db
      .selectFrom('quota_data')
      .select((eb) => eb.fn.max('created_at').as('t'))
      .executeTakeFirst();
    if (newest?.t != null) after = Math.max(after, Number(newest.t) + HOUR);
  }
  let q = logDb
    .selectFrom('logs')
    .select((eb) => [
      bucket.as('created_at'),
      'model_name',
      eb.fn.countAll().as('count'),
      eb.fn.sum('quota').as('quota'),
      eb.fn.sum(sql<number>`prompt_tokens + completion_tokens`).as('token_used'),
    ])
    .where('id', '>', lastId)
    .where('type', '=', LogType.Consume);
  if (who.userId !== undefined) q = q.where('user_id', '=', who.userId);
  if (who.username !== undefined) q = q.where('username', '=', who.username);
  if (after > 0) q = q.where('created_at', '>=', after);
  if (range.end > 0) q = q.where('created_at', '<=', range.end);
  const rows = await q.groupBy([bucket, 'model_name']).execute();
  return rows.map((r) => ({
    id: 0,
    user_id: who.userId ?? 0,
    username: who.username ?? '',
    model_name: String(r.model_name),
    created_at: Number(r.created_at),
    token_used: Number(r.token_used ?? 0),
    count: Number(r.count),
    quota: Number(r.quota ?? 0),
  }));
}
