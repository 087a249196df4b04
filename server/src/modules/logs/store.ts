import { type Selectable, sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import type { LogsTable } from '../../db/schema.ts';
import { deleteFromSqliteLog } from '../../ledger/worker/shared-thread.ts';
import { dropLogPartsBefore } from './drop-before.ts';
import { applyLogFilter, type LogCursor, type LogFilter } from './filters.ts';
import { hourlySums } from './stat-hourly.ts';
import { sumConsumption } from './sums.ts';

/**
 * Totals above this are reported as "at least COUNT_CAP": counting millions of matching rows exactly costs
 * more than the page itself, while counting up to the cap walks at most that many index entries.
 */
export const COUNT_CAP = 10_000;

export type LogRow = Selectable<LogsTable>;

export interface LogPage {
  rows: LogRow[];
  total: number;
  capped: boolean;
}

const LOG_TYPE_CONSUME = 2;

/**
 * One page of the rows matching `f`, newest first, and the capped count of all of them. With a cursor the page
 * is the `page`-th after the cursor's row (keyset paging); the count still covers the whole filter, so the
 * pager does not change while the reader walks through it.
 */
export async function listLogs(
  handle: Db,
  f: LogFilter,
  page: number,
  pageSize: number,
  cursor?: LogCursor,
): Promise<LogPage> {
  const db = handle.db;
  const filtered = applyLogFilter(db.selectFrom('logs'), f);
  let paged = filtered;
  if (cursor) {
    // Written as a range on created_at plus a tie-break, so every (column, created_at) index serves the range.
    const { before_time: t, before_id: id } = cursor;
    paged = paged
      .where('created_at', '<=', t)
      .where((eb) => eb.or([eb('created_at', '<', t), eb('id', '<', id)]));
  }
  const offset = (page - 1) * pageSize;
  let pageRows = paged.selectAll();
  if (handle.sqlite && offset > 0) {
    // On SQLite's chunked log (db/log-chunks/) a deep page is found from the (created_at, id) entries alone and
    // only its rows are read: walking the offset with whole rows merged from every chunk took 290 ms at an
    // offset of 500,000, this 81 ms.
    const ids = paged
      .select(['id', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .offset(offset);
    pageRows = db
      .selectFrom('logs')
      .selectAll()
      .where('id', 'in', (eb) => eb.selectFrom(ids.as('p')).select('p.id'));
  } else pageRows = pageRows.limit(pageSize).offset(offset);
  const [rows, counted] = await Promise.all([
    pageRows.orderBy('created_at', 'desc').orderBy('id', 'desc').execute(),
    db
      .selectFrom(
        filtered
          .select(sql<number>`1`.as('one'))
          .limit(COUNT_CAP + 1)
          .as('t'),
      )
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const n = Number(counted.n);
  return { rows, total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP };
}

export interface LogStat {
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Consumption requests in the last 60 seconds. */
  rpm: number;
  /** Prompt plus completion tokens of consumption in the last 60 seconds. */
  tpm: number;
}

/**
 * Sums of consumption (type 2) under the filters, from the hourly buckets where the filters allow
 * (stat-hourly.ts); rpm/tpm look at the last minute whatever the time range.
 */
export async function statLogs(
  handle: Db,
  f: LogFilter,
  now = Math.floor(Date.now() / 1000),
): Promise<LogStat> {
  const db = handle.db;
  const [sums, recent] = await Promise.all([
    hourlySums(handle, f).then((s) => s ?? sumConsumption(db, f)),
    applyLogFilter(db.selectFrom('logs'), f, { withType: false, withTime: false })
      .where('type', '=', LOG_TYPE_CONSUME)
      .where('created_at', '>=', now - 60)
      .select((eb) => [
        eb.fn.countAll<number>().as('requests'),
        sql<number>`sum(prompt_tokens + completion_tokens)`.as('tokens'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    ...sums,
    total_tokens: sums.prompt_tokens + sums.completion_tokens,
    rpm: Number(recent.requests ?? 0),
    tpm: Number(recent.tokens ?? 0),
  };
}

/** Removes every row older than `before` (unix seconds); returns how many went. */
export async function deleteLogsBefore(ctx: AppContext, before: number): Promise<number> {
  const dropped = await dropLogPartsBefore(ctx, before);
  if (ctx.logDb.sqlite) return dropped + (await deleteFromSqliteLog(ctx, { kind: 'delete-before', before }));
  const r = await ctx.logDb.db.deleteFrom('logs').where('created_at', '<', before).executeTakeFirst();
  return dropped + Number(r.numDeletedRows ?? 0);
}

/** Channel names by id, from the main database (the logs may live in another one). */
export async function channelNames(handle: Db, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids.filter((id) => id > 0))];
  if (unique.length === 0) return new Map();
  const rows = await handle.db
    .selectFrom('channels')
    .select(['id', 'name'])
    .where('id', 'in', unique)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.name]));
}
