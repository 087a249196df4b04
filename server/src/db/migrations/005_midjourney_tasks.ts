import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * What the Midjourney relay needs beyond the drawing log's columns: who to refund (the token and the group the
 * charge was priced in), when the row was last refreshed from the upstream, the client's notify hook, the video
 * URL of video tasks; and an index for the task loop, which reads the unfinished rows every few seconds.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('midjourneys')
    .addColumn('token_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('midjourneys')
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('midjourneys')
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('midjourneys').addColumn('notify_hook', 'text').execute();
  await db.schema.alterTable('midjourneys').addColumn('video_url', 'text').execute();
  await db.schema.createIndex('idx_mj_status').on('midjourneys').columns(['status']).execute();
}
