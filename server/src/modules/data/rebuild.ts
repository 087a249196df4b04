import { LogType } from '@modelgate/shared';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database, LogHourlyTable, QuotaDataTable } from '../../db/schema.ts';
import { type BucketTable, bucketWriter } from './bucket-writer.ts';
import { type HourlyMark, readHourlyMark, writeHourlyMark } from './mark.ts';
import { mergeInto, type RowBound, readInSlices, type SlicePace, tick } from './slices.ts';

const HOUR = 3600;
const PER_USER_SUMS = ['count', 'quota', 'token_used'] as const;
const PER_MODEL_SUMS = ['count', 'quota', 'cost', 'prompt_tokens', 'completion_tokens'] as const;

const hourOf = (t: number) => t - (t % HOUR);

export interface ExportResult {
  since: number;
  buckets: number;
  hourly: number;
}

/** The two databases an export reads and writes: the log's, and the main one with `quota_data`. */
export interface ExportDbs {
  db: Db;
  logDb: Db;
}

/** One run of the dashboard export (export.ts) on `dbs`, reading the log in slices at `pace`. */
export async function runExport(dbs: ExportDbs, now: number, pace: SlicePace): Promise<ExportResult> {
  const logDb = dbs.logDb.db;
  const [mark, extent] = await Promise.all([
    readHourlyMark(logDb),
    logDb.selectFrom('logs_extent').selectAll().executeTakeFirst(),
  ]);
  if (extent?.max_id === null || extent?.max_id === undefined) return { since: now, buckets: 0, hourly: 0 };
  const upTo = Number(extent.max_id);
  const since = Math.max(
    await windowStart(logDb, dbs.logDb.dialect, mark, upTo),
    // Buckets older than the oldest log row left are kept as they are: retention (or an admin's cleanup) deleted
    // their rows, and rebuilding them from nothing would erase the dashboard's history.
    hourOf(Number(extent.min_created_at ?? 0)),
  );
  // The first run (an upgrade) builds all of log_hourly, but rebuilds quota_data only from where it stopped:
  // millions of per-user buckets would hold the write lock for minutes on SQLite.
  const quotaSince = mark ? since : Math.max(since, (await lastBucket(dbs.db.db)) - HOUR);

  const bucket = sql<number>`(created_at - (created_at % ${sql.lit(HOUR)}))`;
  const consumed = (from: number, to: number | undefined) => {
    let q = logDb
      .selectFrom('logs')
      .where('type', '=', LogType.Consume)
      .where('created_at', '>=', from)
      .where('id', '<=', upTo);
    if (to !== undefined) q = q.where('created_at', '<', to);
    return q;
  };
  // Read in slices of time (slices.ts): partial sums of a bucket cut by a slice edge are added up here.
  const users = new Map<string, Insertable<QuotaDataTable> & { created_at: number }>();
  const models = new Map<string, LogHourlyTable>();
  // quota_data first: should the log_hourly part fail, the mark stays and the next run redoes both.
  const quotaData = bucketWriter(dbs.db, QUOTA_DATA, quotaSince, !mark);
  const hourly = bucketWriter(dbs.logDb, LOG_HOURLY, since, !mark, (trx) =>
    writeHourlyMark(trx, { lastId: upTo, ranAt: now }),
  );
  const end = Math.max(now, Number(extent.max_created_at ?? 0));
  // Where the next `rows` rows of the log end, from the (created_at, id) index: a walk of that many entries.
  const bound: RowBound = async (from, rows) => {
    const row = await logDb
      .selectFrom('logs')
      .select('created_at')
      .where('created_at', '>=', from)
      .orderBy('created_at')
      .limit(1)
      .offset(rows)
      .executeTakeFirst();
    return row ? Number(row.created_at) : undefined;
  };
  await readInSlices(quotaSince, end, async (from, to) => {
    const rows = await consumed(from, to)
      .select((eb) => [
        'user_id',
        'model_name',
        bucket.as('hour'),
        eb.fn.max('username').as('username'),
        eb.fn.countAll().as('count'),
        eb.fn.sum('quota').as('quota'),
        eb.fn.sum(sql<number>`prompt_tokens + completion_tokens`).as('token_used'),
      ])
      .groupBy(['user_id', 'model_name', bucket])
      // Oldest first within a slice too (slices come in time order), for the first build's chunked commits.
      .orderBy(bucket)
      .execute();
    for (const r of rows) {
      const row = {
        user_id: Number(r.user_id),
        username: String(r.username ?? ''),
        model_name: r.model_name,
        created_at: Number(r.hour),
        count: Number(r.count),
        quota: Number(r.quota ?? 0),
        token_used: Number(r.token_used ?? 0),
      };
      mergeInto(users, `${row.user_id}\u0000${row.model_name}\u0000${row.created_at}`, row, PER_USER_SUMS);
    }
    if (to !== undefined) await quotaData.complete(users, to);
  }, pace, bound);
  const buckets = await quotaData.finish(users);
  await readInSlices(since, end, async (from, to) => {
    const rows = await consumed(from, to)
      .select((eb) => [
        'model_name',
        'channel_id',
        bucket.as('hour'),
        eb.fn.countAll().as('count'),
        eb.fn.sum('quota').as('quota'),
        eb.fn.sum('cost').as('cost'),
        eb.fn.sum('prompt_tokens').as('prompt_tokens'),
        eb.fn.sum('completion_tokens').as('completion_tokens'),
      ])
      .groupBy(['model_name', 'channel_id', bucket])
      .execute();
    for (const r of rows) {
      const row = {
        model_name: r.model_name,
        channel_id: Number(r.channel_id),
        created_at: Number(r.hour),
        count: Number(r.count),
        quota: Number(r.quota ?? 0),
        cost: Number(r.cost ?? 0),
        prompt_tokens: Number(r.prompt_tokens ?? 0),
        completion_tokens: Number(r.completion_tokens ?? 0),
      };
      mergeInto(models, `${row.model_name}\u0000${row.channel_id}\u0000${row.created_at}`, row, PER_MODEL_SUMS);
    }
    if (to !== undefined) await hourly.complete(models, to);
  }, pace, bound);
  return { since, buckets, hourly: await hourly.finish(models) };
}

async function lastBucket(db: Kysely<Database>): Promise<number> {
  const last = await db
    .selectFrom('quota_data')
    .select((eb) => eb.fn.max('created_at').as('t'))
    .executeTakeFirst();
  return Number(last?.t ?? 0);
}

/** The first hour to rebuild: everything before the first export, else see exportQuotaData. */
/** Rows of the log read by one query of `windowStart` on SQLite: a few milliseconds of the event loop. */
const ID_STEP_SQLITE = 5_000;

async function windowStart(
  db: Kysely<Database>,
  dialect: string,
  mark: HourlyMark | undefined,
  upTo: number,
): Promise<number> {
  if (!mark) return 0;
  // On SQLite the rows above the mark are read in id steps with a turn of the event loop between: at a thousand
  // requests a second, five minutes since the last export are 300,000 rows, almost a second in one query.
  const step = dialect === 'sqlite' ? ID_STEP_SQLITE : Number.MAX_SAFE_INTEGER;
  let earliest: number | undefined;
  for (let from = mark.lastId; from < upTo; from += step) {
    const fresh = await db
      .selectFrom('logs')
      // `+ 0`: not min() through the created_at index, which would walk every row below the mark from the oldest
      // on; the id range alone picks the rows.
      .select(sql<number | null>`min(created_at + 0)`.as('t'))
      .where('id', '>', from)
      .where('id', '<=', Math.min(upTo, from + step))
      .executeTakeFirst();
    if (fresh?.t !== null && fresh?.t !== undefined)
      earliest = earliest === undefined ? Number(fresh.t) : Math.min(earliest, Number(fresh.t));
    if (step === ID_STEP_SQLITE) await tick();
  }
  const previous = hourOf(mark.ranAt) - HOUR;
  return earliest === undefined ? previous : Math.min(previous, hourOf(earliest));
}

const QUOTA_DATA: BucketTable<Insertable<QuotaDataTable> & { created_at: number }> = {
  name: 'quota_data',
  columns: ['user_id', 'username', 'model_name', 'created_at', 'count', 'quota', 'token_used'],
};
const LOG_HOURLY: BucketTable<LogHourlyTable> = {
  name: 'log_hourly',
  columns: ['model_name', 'channel_id', 'created_at', 'count', 'quota', 'cost', 'prompt_tokens', 'completion_tokens'],
};

