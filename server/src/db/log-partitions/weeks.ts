/**
 * The usage log on PostgreSQL and MySQL, partitioned by week of `created_at` (UTC, Monday to Monday): rows are
 * written to one week's partition, whose indexes stay small and in cache; a query with a time range reads only
 * its weeks; retention drops whole weeks. A week, not a day: every query without a time range (a first page, the
 * newest id) is planned over every partition, and with 15 indexes each, 100 daily partitions cost PostgreSQL
 * 15-20 ms of planning per query (README, Usage log storage). On SQLite the log is stored in chunks instead
 * (db/log-chunks/).
 *
 * - `p0` holds every row older than the weekly partitions: at the upgrade, the whole existing log.
 * - Weekly partitions, named after their Monday (`p20261123`), are created up to AHEAD seconds after now, at every
 *   start and hourly (retention's pass, modules/retention/job.ts), so a row always has its week.
 * - `pmax` holds anything later (a row written when the weeks ahead had run out): a range up to MAXVALUE, which
 *   keeps the partitions in order (PostgreSQL reads them in order for a newest-first page; a DEFAULT partition
 *   would make it merge them all). Adding weeks moves the rows it holds for them into them.
 */
export const DAY = 86_400;
export const WEEK = 7 * DAY;
export const AHEAD = 7 * DAY;
/** 1970-01-05, a Monday. */
const MONDAY = 4 * DAY;

export const weekStart = (t: number) => t - ((((t - MONDAY) % WEEK) + WEEK) % WEEK);

/** A weekly partition's name: its Monday, `p20261123`. */
export function weekName(start: number): string {
  return `p${new Date(start * 1000).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The first `created_at` of each weekly partition to add after `last`, the current upper bound (a Monday). */
export function weeksToAdd(last: number, now: number): number[] {
  const out: number[] = [];
  for (let w = weekStart(last); w <= now + AHEAD; w += WEEK) out.push(w);
  return out;
}

/**
 * Where `p0` ends at the upgrade: after this week (or the newest row's, if later) when the log holds rows, so all
 * of them stay where they are; at this week's start on an empty log.
 */
export const firstBound = (now: number, newest: number | null) =>
  newest === null ? weekStart(now) : weekStart(Math.max(now, newest)) + WEEK;

/** A partition of the log: its name and the `created_at` range it holds (null: unbounded). */
export interface LogPartition {
  name: string;
  from: number | null;
  to: number | null;
}

/** The upper bound of the weekly partitions: where `pmax` starts. */
export const weeksEnd = (parts: LogPartition[]) =>
  parts.find((p) => p.to === null)?.from ?? Math.max(...parts.map((p) => p.to ?? 0));

/** A whole number for DDL, where engines take no bound parameters. */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}
