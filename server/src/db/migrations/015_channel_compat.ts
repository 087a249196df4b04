import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `channel_compat_runs`: one row per compatibility check of a channel (modules/channels/compat): when, by whom
 * (0 for a scheduled run), the model, the quota the run was estimated at and the quota it was charged, and the
 * matrix of results as JSON (script x client format: verdict and reason).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  let t = db.schema.createTable('channel_compat_runs').ifNotExists();
  if (dialect === 'sqlite') t = t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  else if (dialect === 'postgres') t = t.addColumn('id', 'bigserial', (c) => c.primaryKey());
  else t = t.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement());
  t = t
    .addColumn('channel_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('trigger', 'varchar(16)', (c) => c.notNull().defaultTo('manual'))
    .addColumn('model', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('estimated_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('charged_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('passed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('results', 'text', (c) => c.notNull());
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
  let index = db.schema
    .createIndex('idx_channel_compat_runs_channel')
    .on('channel_compat_runs')
    .columns(['channel_id', 'id']);
  if (dialect !== 'mysql') index = index.ifNotExists();
  await index.execute();
}
