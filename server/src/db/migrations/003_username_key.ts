import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `users.username_key`: the username NFKC-normalised and lower-cased (users/names.ts), unique, so "Alice" and
 * "alice" cannot both exist whatever the engine's collation. Existing rows get lower(username); a row whose
 * key an older row already holds keeps its name but gets a key of its own (name#id) instead of failing.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('users').addColumn('username_key', 'varchar(80)').execute();
  await sql`UPDATE users SET username_key = lower(username)`.execute(db);
  const dupes = await sql<{ id: number; username: string }>`
    SELECT u.id, u.username FROM users u
    WHERE EXISTS (SELECT 1 FROM users o WHERE o.username_key = u.username_key AND o.id < u.id)`.execute(db);
  for (const r of dupes.rows)
    await sql`UPDATE users SET username_key = ${`${String(r.username).toLowerCase()}#${r.id}`} WHERE id = ${r.id}`.execute(
      db,
    );
  let index = db.schema.createIndex('idx_users_username_key').on('users').column('username_key').unique();
  if (dialect !== 'mysql') index = index.ifNotExists();
  await index.execute();
}
