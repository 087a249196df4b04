import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';

const HOUR = 3600;
const INSERT_CHUNK = 500;

/**
 * Rebuilds the hourly `quota_data` buckets (user x model x hour: count, quota, token_used) from the consume
 * rows of the usage log.
 *
 * Why replace instead of increment: the log may live in another database (LOG_SQL_DSN), so no transaction can
 * cover "read these log rows" and "add them to the buckets". Instead each run recomputes every bucket from
 * `since` onward from the log and replaces those buckets in one transaction. Running twice gives the same
 * rows, a crash between runs loses nothing, and a log row written late (batched writes) is picked up by the
 * next run because the window starts one hour before the last bucket already written (or at the oldest log
 * row left, whichever is later: buckets are kept after their log rows expire, see modules/retention).
 */
export async function exportQuotaData(ctx: AppContext, now = Math.floor(Date.now() / 1000)): Promise<{ since: number; buckets: number }> {
  const db = ctx.db.db;
  const last = await db.selectFrom('quota_data').select((eb) => eb.fn.max('created_at').as('last')).executeTakeFirst();
  const lastBucket = Number(last?.last ?? 0);
  // Buckets older than the oldest log row left are kept as they are: retention (or an admin's cleanup) deleted
  // their rows, and rebuilding them from nothing would erase the dashboard's history.
  const oldest = await ctx.logDb.db
    .selectFrom('logs')
    .select((eb) => eb.fn.min('created_at').as('t'))
    .executeTakeFirst();
  if (oldest?.t === null || oldest?.t === undefined) return { since: now, buckets: 0 };
  const oldestHour = Number(oldest.t) - (Number(oldest.t) % HOUR);
  const since = Math.max(lastBucket > 0 ? lastBucket - HOUR : 0, oldestHour);

  const bucket = sql<number>`(created_at - (created_at % ${sql.lit(HOUR)}))`;
  const rows = await ctx.logDb.db
    .selectFrom('logs')
    .select((eb) => [
      'user_id',
      'model_name',
      bucket.as('hour'),
      eb.fn.max('username').as('username'),
      eb.fn.countAll().as('count'),
      eb.fn.sum('quota').as('quota'),
      eb.fn.sum(sql<number>`prompt_tokens + completion_tokens`).as('token_used'),
    ])
    .where('type', '=', 2)
    .where('created_at', '>=', since)
    .where('created_at', '<=', now)
    .groupBy(['user_id', 'model_name', bucket])
    .execute();

  const values = rows.map((r) => ({
    user_id: Number(r.user_id),
    username: String(r.username ?? ''),
    model_name: r.model_name,
    created_at: Number(r.hour),
    count: Number(r.count),
    quota: Number(r.quota ?? 0),
    token_used: Number(r.token_used ?? 0),
  }));

  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('quota_data').where('created_at', '>=', since).execute();
    for (let i = 0; i < values.length; i += INSERT_CHUNK) {
      await trx.insertInto('quota_data').values(values.slice(i, i + INSERT_CHUNK)).execute();
    }
  });
  return { since, buckets: values.length };
}

/**
 * Runs the export every DataExportInterval minutes (re-read each cycle) while DataExportEnabled, on the
 * master node only. Stopped at shutdown.
 */
export function startQuotaDataExport(ctx: AppContext): void {
  if (ctx.config.nodeType !== 'master') return;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    const minutes = Math.max(1, ctx.options.int('DataExportInterval') || 5);
    timer = setTimeout(tick, minutes * 60_000);
    timer.unref();
  };
  const tick = () => {
    running = (ctx.options.bool('DataExportEnabled') ? exportQuotaData(ctx) : Promise.resolve())
      .catch((err) => ctx.log.error({ err }, 'quota data export failed'))
      .finally(schedule);
  };
  schedule();
  ctx.onClose(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}
