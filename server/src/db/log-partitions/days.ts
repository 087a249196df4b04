/**
 * The usage log on PostgreSQL and MySQL, partitioned by day of `created_at` (UTC): rows are written to one day's
 * partition, whose indexes stay small and in cache; a query with a time range reads only its days; retention
 * drops whole days. On SQLite the log is stored in chunks instead (db/log-chunks/).
 *
 * - The first partition (`p0`) holds every row older than the daily ones: at the upgrade, the whole existing log.
 * - Daily partitions are created ahead, up to AHEAD_DAYS after today, at every start and hourly (retention's
 *   pass, modules/retention/job.ts), so a row always has its day's partition.
 * - Rows later than the last day go to a catch-all partition (PostgreSQL's DEFAULT, MySQL's MAXVALUE one).
 */
export const DAY = 86_400;
export const AHEAD_DAYS = 7;

export const dayStart = (t: number) => t - (((t % DAY) + DAY) % DAY);

/** A daily partition's name: the day it starts, `20261128`. */
export function dayName(start: number): string {
  return new Date(start * 1000).toISOString().slice(0, 10).replaceAll('-', '');
}

/** The first `created_at` of each daily partition to add after `last`, the log's current upper bound (a day start). */
export function daysToAdd(last: number, now: number): number[] {
  const out: number[] = [];
  const end = dayStart(now) + (AHEAD_DAYS + 1) * DAY;
  for (let d = dayStart(last); d < end; d += DAY) out.push(d);
  return out;
}

/**
 * Where the first partition ends at the upgrade: after today (or the newest row, if later) when the log holds
 * rows, so all of them stay where they are; at today's start on an empty log.
 */
export const firstBound = (now: number, newest: number | null) =>
  newest === null ? dayStart(now) : dayStart(Math.max(now, newest)) + DAY;

/** A whole number for DDL, where engines take no bound parameters. */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

/** A partition of the log: its name and the `created_at` range it holds (null: unbounded or the catch-all). */
export interface LogPartition {
  name: string;
  from: number | null;
  to: number | null;
}
