import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `logs_extent`: the usage log's newest id and its oldest and newest times, in one row, each read from an index
 * end (a lone min() or max() per subquery). On SQLite the view is made with the log's chunks instead
 * (db/log-chunks/view.ts), where an aggregate over the `logs` view would read every row.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') return;
  await sql`CREATE VIEW logs_extent AS SELECT
    (SELECT max(id) FROM logs) AS max_id,
    (SELECT min(created_at) FROM logs) AS min_created_at,
    (SELECT max(created_at) FROM logs) AS max_created_at`.execute(db);
}
