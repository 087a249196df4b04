import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `import_marks`: how far `npm run import` has copied an append-only table (usage logs) of one source
 * database, so a second run continues after the last row instead of copying it again. It lives in every
 * database the gateway migrates (the log database too), so the mark moves in the same transaction as the rows.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  let t = db.schema
    .createTable('import_marks')
    .ifNotExists()
    .addColumn('source', 'varchar(64)', (c) => c.notNull())
    .addColumn('entity', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('pk_import_marks', ['source', 'entity']);
  if (dialect === 'mysql') t = t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await t.execute();
}
