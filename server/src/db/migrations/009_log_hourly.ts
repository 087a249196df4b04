import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `log_hourly`: the usage log's consumption rows summed per hour and model, kept by the dashboard export
 * (modules/data/export.ts) next to the log, in the log database. The console's stat over everyone and the admin
 * dashboard read a few thousand of these rows instead of millions of log rows. How far the log has been summed
 * is an `import_marks` row (source `hourly-export`), moved in the same transaction as the buckets.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  let t = db.schema
    .createTable('log_hourly')
    .ifNotExists()
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('model_name', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('pk_log_hourly', ['created_at', 'model_name']);
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
}
