import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * PostgreSQL: the (model_name, type, created_at) index of the usage log carries "group" as an included column.
 * The console's errors of a model in a group, over the whole log, counted (up to 10,000) by reading the type
 * index and each row's group from the table: 470-500 ms at 50 million rows (`npm run bench:logs -- --rows
 * 50000000`), most of it heap pages; with the group in the index the count reads the index alone (8 ms) and the
 * newest-first page still walks it in created_at order. Built on every partition at the upgrade (about 80 s per
 * 50 million rows); writes to the log wait meanwhile. MySQL and SQLite keep theirs: not measured at that size.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`CREATE INDEX IF NOT EXISTS idx_logs_model_type_created_group
    ON logs (model_name, type, created_at) INCLUDE ("group")`.execute(db);
  await sql`DROP INDEX IF EXISTS idx_logs_model_type_created`.execute(db);
}
