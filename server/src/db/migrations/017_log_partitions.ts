import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { partitionMysqlLog } from '../log-partitions/mysql.ts';
import { partitionPgLog } from '../log-partitions/postgres.ts';

/**
 * The usage log partitioned by day on PostgreSQL and MySQL (db/log-partitions/): the existing rows become the
 * first partition. On PostgreSQL the table is renamed and attached, its indexes kept; MySQL copies the table once.
 * SQLite stores the log in chunks instead (db/log-chunks/).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  if (dialect === 'postgres') await partitionPgLog(db, now);
  else if (dialect === 'mysql') await partitionMysqlLog(db, now);
}
