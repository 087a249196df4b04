import { LogType } from '@modelgate/shared';
import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import { HOURLY_MARK } from '../data/mark.ts';
import { applyLogFilter, type LogFilter } from '../logs/filters.ts';

const HOUR = 3600;
/** As in logs/stat-hourly.ts: past this many unexported rows the plain query is cheaper. */
const MAX_UNEXPORTED = 250_000;

/** Consumption of one model on one channel in one hour (`hour`: its first second). */
export interface MarginRow {
  hour: number;
  channel_id: number;
  model_name: string;
  count: number;
  quota: number;
  cost: number;
}

const bucket = sql<number>`(created_at - (created_at % ${sql.lit(HOUR)}))`;
const num = (v: unknown) => Number(v ?? 0);

const toRow = (r: {
  hour: unknown;
  channel_id: unknown;
  model_name: string | null;
  count: unknown;
  quota: unknown;
  cost: unknown;
}): MarginRow => ({
  hour: num(r.hour),
  channel_id: num(r.channel_id),
  model_name: r.model_name ?? '',
  count: num(r.count),
  quota: num(r.quota),
  cost: num(r.cost),
});

/**
 * The consumption rows (type 2) under the filter, summed per hour, channel and model. Filters the hourly buckets
 * can serve (time, model, channel) read `log_hourly` for the whole hours and the log for the rest, exactly as
 * logs/stat-hourly.ts does for the stat; other filters (user, token, group) read the log.
 */
export async function marginRows(handle: Db, f: LogFilter): Promise<MarginRow[]> {
  const fromBuckets =
    f.user_id === undefined && !f.username && !f.token_name && !f.group
      ? await hourlyRows(handle, f)
      : undefined;
  return fromBuckets ?? loggedRows(handle, f);
}

/** The plain query: the log rows under the filter, grouped. */
async function loggedRows(handle: Db, f: LogFilter): Promise<MarginRow[]> {
  const rows = await applyLogFilter(handle.db.selectFrom('logs'), f, { withType: false })
    .where('type', '=', LogType.Consume)
    .select((eb) => [
      bucket.as('hour'),
      'channel_id',
      'model_name',
      eb.fn.countAll().as('count'),
      eb.fn.sum('quota').as('quota'),
      eb.fn.sum('cost').as('cost'),
    ])
    .groupBy([bucket, 'channel_id', 'model_name'])
    .execute();
  return rows.map(toRow);
}

/**
 * Whole hours from the buckets, the partial hours at both ends and the rows above the export's mark from the
 * log; undefined when the buckets cannot answer (no export yet, too far behind, or no whole hour in range).
 */
async function hourlyRows(handle: Db, f: LogFilter): Promise<MarginRow[] | undefined> {
  const db = handle.db;
  const oldest = await db.selectFrom('logs_extent').select('min_created_at as t').executeTakeFirst();
  if (oldest?.t === null || oldest?.t === undefined) return [];
  const lo = Math.max(f.start_timestamp ?? 0, Number(oldest.t));
  const hi = f.end_timestamp || Number.POSITIVE_INFINITY;
  const first = Math.ceil(lo / HOUR) * HOUR;
  const stop = Number.isFinite(hi) ? Math.floor((hi + 1) / HOUR) * HOUR : hi;
  if (first >= stop) return undefined;

  // The mark, the newest id and the buckets in one statement (one snapshot: an export committing meanwhile
  // cannot count a row twice or not at all). No mark row: no rows at all.
  const buckets = await db
    .selectFrom('import_marks as m')
    .leftJoin('log_hourly as b', (join) => {
      let j = join.on('b.created_at', '>=', first);
      if (Number.isFinite(stop)) j = j.on('b.created_at', '<', stop);
      if (f.model_name) j = j.on('b.model_name', '=', f.model_name);
      if (f.channel) j = j.on('b.channel_id', '=', f.channel);
      return j;
    })
    .select((eb) => [
      'm.last_id as mark',
      eb.selectFrom('logs_extent').select('max_id').as('top'),
      'b.created_at as hour',
      'b.channel_id',
      'b.model_name',
      'b.count',
      'b.quota',
      'b.cost',
    ])
    .where('m.source', '=', HOURLY_MARK.source)
    .where('m.entity', '=', HOURLY_MARK.entity)
    .execute();
  if (buckets.length === 0) return undefined;
  const mark = Number(buckets[0].mark);
  if (Number(buckets[0].top ?? 0) - mark > MAX_UNEXPORTED) return undefined;

  const edge = (start: number, end: number) =>
    loggedRows(handle, { ...f, start_timestamp: start, end_timestamp: end });
  const parts = await Promise.all([
    lo < first ? edge(lo, first - 1) : [],
    Number.isFinite(hi) && stop <= hi ? edge(stop, hi) : [],
    aboveMark(handle, mark, f, first, stop),
  ]);
  return [...buckets.filter((b) => b.hour !== null).map(toRow), ...parts.flat()];
}

/**
 * Rows of the whole hours that the last export had not summed. Only the id range is a condition the engine may
 * use an index for; the filter sits inside the sums (as in stat-hourly.ts), and groups that match nothing are
 * dropped here.
 */
async function aboveMark(handle: Db, mark: number, f: LogFilter, first: number, stop: number) {
  const rows = await handle.db
    .selectFrom('logs')
    .select((eb) => {
      const conds = [eb('type', '=', LogType.Consume), eb('created_at', '>=', first)];
      if (Number.isFinite(stop)) conds.push(eb('created_at', '<', stop));
      if (f.model_name) conds.push(eb('model_name', '=', f.model_name));
      if (f.channel) conds.push(eb('channel_id', '=', f.channel));
      const when = eb.and(conds);
      const sumIf = (col: 'quota' | 'cost') =>
        eb.fn.sum<number>(eb.case().when(when).then(eb.ref(col)).else(0).end());
      return [
        bucket.as('hour'),
        'channel_id',
        'model_name',
        eb.fn.sum<number>(eb.case().when(when).then(sql.lit(1)).else(sql.lit(0)).end()).as('count'),
        sumIf('quota').as('quota'),
        sumIf('cost').as('cost'),
      ];
    })
    .where('id', '>', mark)
    .groupBy([bucket, 'channel_id', 'model_name'])
    .execute();
  return rows.map(toRow).filter((r) => r.count > 0);
}
