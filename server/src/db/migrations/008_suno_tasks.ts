import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * What the Suno relay needs beyond the task log's columns: who to refund (the token and the group the charge
 * was priced in), and an index for the task loop, which reads a platform's unfinished rows every few seconds.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('tasks')
    .addColumn('token_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createIndex('idx_tasks_platform_status')
    .on('tasks')
    .columns(['platform', 'status'])
    .execute();
}
