import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `audit_logs`: every change made through the console API (and `config apply`), append-only. `seq` is the
 * primary key and is taken as the previous row's seq + 1, so two writers racing for the same place collide on
 * the key and one retries: the rows form one chain without gaps. `hash` is SHA-256 over the row's content and
 * `prev_hash` (modules/audit/chain.ts), so an edited or missing row is found by `npm run audit:verify`.
 * `changes` is JSON: the before/after of each row the request changed, secrets redacted.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  let t = db.schema
    .createTable('audit_logs')
    .ifNotExists()
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('username', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('role', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('method', 'varchar(8)', (c) => c.notNull().defaultTo(''))
    .addColumn('path', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('action', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('entity', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('target', 'varchar(191)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull());
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
  for (const cols of [['created_at'], ['user_id', 'seq'], ['entity', 'seq']]) {
    let index = db.schema.createIndex(`idx_audit_logs_${cols[0]}`).on('audit_logs').columns(cols);
    if (dialect !== 'mysql') index = index.ifNotExists();
    await index.execute();
  }
}
