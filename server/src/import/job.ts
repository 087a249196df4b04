import { type Kysely, sql } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import type { Flavor } from './detect.ts';
import type { ImportReport } from './report.ts';
import type { SourceDb } from './source.ts';

/** One import run: the source, the target gateway's context, and what earlier steps decided. */
export interface ImportJob {
  ctx: AppContext;
  src: SourceDb;
  flavor: Flavor;
  /** Columns of each source table (lower case). */
  tables: Map<string, Set<string>>;
  dryRun: boolean;
  batchSize: number;
  /** A stable name of the source (engine, host, database) for the marks of append-only tables. */
  sourceId: string;
  report: ImportReport;
  /** Source user ids that are the same account here (imported now or earlier): their rows may follow. */
  users: Set<number>;
  /** Source channel ids present here: the (group, model) pairs their abilities hold, and whether this run wrote them. */
  channels: Map<number, { pairs: Set<string>; fresh: boolean }>;
}

export const hasColumn = (job: ImportJob, table: string, column: string) =>
  job.tables.get(table)?.has(column) ?? false;

/** The source table's rows in id order, `batchSize` at a time (keyset pages, so big tables stream). */
export async function* sourceBatches(
  job: ImportJob,
  table: string,
  afterId = 0,
): AsyncGenerator<Record<string, unknown>[]> {
  let last = afterId;
  for (;;) {
    const rows = (await job.src.db
      .selectFrom(table)
      .selectAll()
      .where('id', '>', last)
      .orderBy('id')
      .limit(job.batchSize)
      .execute()) as Record<string, unknown>[];
    if (rows.length === 0) return;
    yield rows;
    last = Number(rows[rows.length - 1].id);
    if (rows.length < job.batchSize) return;
  }
}

/**
 * Writes rows in one transaction per batch. When the batch fails (a constraint the checks before did not
 * foresee), each row is retried in a transaction of its own, so one bad row is listed and skipped and the
 * others still go in; no row is ever half-written. Returns the rows written.
 */
export async function commitRows<R, H>(
  rows: R[],
  transaction: (fn: (h: H) => Promise<void>) => Promise<void>,
  write: (h: H, row: R) => Promise<void>,
  failed: (row: R, err: unknown) => void,
): Promise<R[]> {
  if (rows.length === 0) return [];
  try {
    await transaction(async (h) => {
      for (const r of rows) await write(h, r);
    });
    return rows;
  } catch (err) {
    if (rows.length === 1) {
      failed(rows[0], err);
      return [];
    }
  }
  const written: R[] = [];
  for (const r of rows) {
    try {
      await transaction((h) => write(h, r));
      written.push(r);
    } catch (err) {
      failed(r, err);
    }
  }
  return written;
}

/** A database error in words fit for the report (drivers do not put values of the row in these). */
export const errorText = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];

/** PostgreSQL: moves a table's id sequence past the ids inserted explicitly, so new rows get fresh ids. */
export async function bumpSequence(job: ImportJob, db: Kysely<Database>, table: string): Promise<void> {
  if (job.ctx.db.dialect !== 'postgres') return;
  await sql`SELECT setval(pg_get_serial_sequence(${`"${table}"`}, 'id'), GREATEST((SELECT COALESCE(MAX(id), 0) FROM ${sql.table(table)}), 1))`.execute(
    db,
  );
}
