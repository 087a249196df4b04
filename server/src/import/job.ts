import { type ControlledTransaction, type Kysely, sql } from 'kysely';
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
  /** The gateway's database as this run reads and writes it: the run's one transaction (or, dry, the database). */
  db: Kysely<Database>;
  /** The run's one transaction (absent in a dry run): batches and rows are savepoints in it. */
  trx?: ControlledTransaction<Database>;
  /** What is announced once the transaction has committed (reloads on every instance, ledger log rows). */
  afterCommit: Array<() => Promise<void>>;
}

let savepoints = 0;

/**
 * Runs `fn` in a savepoint of the run's transaction: a batch or a row that fails is undone alone, and nothing
 * is kept at all unless the whole run commits.
 */
export async function inSavepoint(
  job: ImportJob,
  fn: (db: Kysely<Database>) => Promise<void>,
): Promise<void> {
  if (!job.trx) throw new Error('the import writes only inside its transaction');
  const name = `import_${++savepoints}`;
  const sp = await job.trx.savepoint(name).execute();
  try {
    await fn(sp);
  } catch (err) {
    await sp.rollbackToSavepoint(name).execute();
    throw err;
  }
  await sp.releaseSavepoint(name).execute();
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
 * Writes rows in one savepoint per batch. When the batch fails (a constraint the checks before did not
 * foresee), each row is retried in a savepoint of its own, so one bad row is listed and skipped and the
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
