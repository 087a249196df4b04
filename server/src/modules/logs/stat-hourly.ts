import { LogType } from '@modelgate/shared';
import type { Db } from '../../db/index.ts';
import { HOURLY_MARK } from '../data/mark.ts';
import type { LogFilter } from './filters.ts';
import { addSums, type ConsumeSums, sumConsumption, toSums } from './sums.ts';

const HOUR = 3600;
/**
 * Rows above the export's mark are read from the log by id. Past this many (the export is off or far behind),
 * the plain query is cheaper.
 */
const MAX_UNEXPORTED = 250_000;

const none: ConsumeSums = { quota: 0, prompt_tokens: 0, completion_tokens: 0 };

/**
 * The consumption sums of a stat over everyone (filtered by time and model only), from the hourly buckets
 * (`log_hourly`, kept by modules/data/export.ts) for the whole hours of the range and from the log for the
 * rest: the partial hours at both ends, and the rows of the whole hours that the last export had not summed
 * (ids above its mark). Equal to the plain query's answer. Undefined when the buckets cannot serve the filter;
 * the caller then runs the plain query.
 *
 * The range starts no earlier than the oldest log row: buckets of hours whose rows retention deleted are kept
 * for the dashboard, but the log no longer counts them. Deletion only ever removes the oldest rows, so every
 * hour from the oldest row's on is complete in its bucket.
 */
export async function hourlySums(handle: Db, f: LogFilter): Promise<ConsumeSums | undefined> {
  if (f.user_id !== undefined || f.username || f.token_name || f.channel || f.group) return undefined;
  const db = handle.db;
  const oldest = await db.selectFrom('logs_extent').select('min_created_at as t').executeTakeFirst();
  if (oldest?.t === null || oldest?.t === undefined) return undefined;
  const lo = Math.max(f.start_timestamp ?? 0, Number(oldest.t));
  const hi = f.end_timestamp || Number.POSITIVE_INFINITY;
  const first = Math.ceil(lo / HOUR) * HOUR;
  const stop = Number.isFinite(hi) ? Math.floor((hi + 1) / HOUR) * HOUR : hi;
  if (first >= stop) return undefined;

  // The buckets and the mark in one statement: one snapshot, so an export committing meanwhile cannot make a
  // row counted twice (in a bucket and above an older mark) or not at all.
  let buckets = db
    .selectFrom('log_hourly')
    .select((eb) => [
      eb.fn.sum<number>('quota').as('quota'),
      eb.fn.sum<number>('prompt_tokens').as('prompt_tokens'),
      eb.fn.sum<number>('completion_tokens').as('completion_tokens'),
      eb
        .selectFrom('import_marks')
        .select('last_id')
        .where('source', '=', HOURLY_MARK.source)
        .where('entity', '=', HOURLY_MARK.entity)
        .as('mark'),
      eb.selectFrom('logs_extent').select('max_id').as('top'),
    ])
    .where('created_at', '>=', first);
  if (Number.isFinite(stop)) buckets = buckets.where('created_at', '<', stop);
  if (f.model_name) buckets = buckets.where('model_name', '=', f.model_name);
  const b = await buckets.executeTakeFirstOrThrow();
  if (b.mark === null || b.mark === undefined) return undefined;
  const mark = Number(b.mark);
  if (Number(b.top ?? 0) - mark > MAX_UNEXPORTED) return undefined;

  const model = f.model_name || undefined;
  const logged = await Promise.all([
    lo < first
      ? sumConsumption(db, { model_name: model, start_timestamp: lo, end_timestamp: first - 1 })
      : none,
    Number.isFinite(hi) && stop <= hi
      ? sumConsumption(db, { model_name: model, start_timestamp: stop, end_timestamp: hi })
      : none,
    sumAboveMark(handle, mark, { first, stop, model }),
  ]);
  return addSums([toSums(b), ...logged]);
}

/**
 * Consumption of the whole hours among the rows above the mark. The id range is the only condition the engine
 * can use an index for: the others sit inside the sums, so no time or model index walks the exported rows.
 */
async function sumAboveMark(
  handle: Db,
  mark: number,
  r: { first: number; stop: number; model?: string },
): Promise<ConsumeSums> {
  const row = await handle.db
    .selectFrom('logs')
    .select((eb) => {
      const conds = [eb('type', '=', LogType.Consume), eb('created_at', '>=', r.first)];
      if (Number.isFinite(r.stop)) conds.push(eb('created_at', '<', r.stop));
      if (r.model) conds.push(eb('model_name', '=', r.model));
      const when = eb.and(conds);
      const sum = (col: 'quota' | 'prompt_tokens' | 'completion_tokens') =>
        eb.fn.sum<number>(eb.case().when(when).then(eb.ref(col)).else(0).end());
      return [
        sum('quota').as('quota'),
        sum('prompt_tokens').as('prompt_tokens'),
        sum('completion_tokens').as('completion_tokens'),
      ];
    })
    .where('id', '>', mark)
    .executeTakeFirstOrThrow();
  return toSums(row);
}
