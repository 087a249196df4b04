import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Sessions that end for real: `users.session_version` (bumped by "log out everywhere") is part of every
 * session's tag, and `revoked_sessions` keeps the ids of logged-out sessions until their cookies expire.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('session_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  let t = db.schema
    .createTable('revoked_sessions')
    .ifNotExists()
    .addColumn('sid', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull());
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
  let index = db.schema
    .createIndex('idx_revoked_sessions_expires_at')
    .on('revoked_sessions')
    .column('expires_at');
  if (dialect !== 'mysql') index = index.ifNotExists();
  await index.execute();
}
