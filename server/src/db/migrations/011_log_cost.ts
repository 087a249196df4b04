import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Upstream cost beside the quota charged:
 * - `logs.cost`: what the request cost at its channel's price, in quota (0 for rows logged before: unknown).
 * - `log_hourly` gains `channel_id` (in its key) and `cost`, so the margin by channel, model and day reads the
 *   hourly buckets like the stat over everyone does. The table is rebuilt under the new key with its rows kept
 *   as channel 0, and the export's mark is removed: the next export rebuilds every bucket whose log rows are
 *   still there with their channels (the same path as the first export after migration 009), while buckets of
 *   hours whose rows retention deleted stay as channel 0.
 * - an `import_marks` row (source `log-cost`) saying when costs began, so the margin can tell "no cost recorded"
 *   from "cost 0".
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('logs')
    .addColumn('cost', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  let t = db.schema
    .createTable('log_hourly_by_channel')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('model_name', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('channel_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('pk_log_hourly_channel', ['created_at', 'model_name', 'channel_id']);
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
  await db
    .insertInto('log_hourly_by_channel')
    .columns([
      'created_at',
      'model_name',
      'channel_id',
      'count',
      'quota',
      'cost',
      'prompt_tokens',
      'completion_tokens',
    ])
    .expression(
      db
        .selectFrom('log_hourly')
        .select([
          'created_at',
          'model_name',
          sql.lit(0).as('channel_id'),
          'count',
          'quota',
          sql.lit(0).as('cost'),
          'prompt_tokens',
          'completion_tokens',
        ]),
    )
    .execute();
  await db.schema.dropTable('log_hourly').execute();
  await db.schema.alterTable('log_hourly_by_channel').renameTo('log_hourly').execute();
  // The export's mark (modules/data/mark.ts HOURLY_MARK), written out so the migration never changes with it.
  await db
    .deleteFrom('import_marks')
    .where('source', '=', 'hourly-export')
    .where('entity', '=', 'logs')
    .execute();
  // When costs began (modules/margin/cost-since.ts): rows up to this id and hours before this time have no cost.
  const top = await db
    .selectFrom('logs')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  await db
    .insertInto('import_marks')
    .values({
      source: 'log-cost',
      entity: 'logs',
      last_id: Number(top?.id ?? 0),
      updated_at: Math.floor(Date.now() / 1000),
    })
    .execute();
}
