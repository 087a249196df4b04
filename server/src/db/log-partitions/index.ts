import type { Db } from '../index.ts';
import { dropMysqlPartitionsBefore, ensureMysqlWeeks } from './mysql.ts';
import { dropPgPartitionsBefore, ensurePgWeeks } from './postgres.ts';

/** Creates the usage log's weekly partitions due by `now` on PostgreSQL and MySQL (weeks.ts); nothing on SQLite. */
export async function ensureLogPartitions(handle: Db, now = Math.floor(Date.now() / 1000)): Promise<void> {
  if (handle.dialect === 'postgres') await ensurePgWeeks(handle.db, now);
  else if (handle.dialect === 'mysql') await ensureMysqlWeeks(handle.db, now);
}

/** Drops the usage log's partitions wholly older than `before` on PostgreSQL and MySQL; returns the rows that went. */
export function dropLogPartitionsBefore(handle: Db, before: number): Promise<number> {
  if (handle.dialect === 'postgres') return dropPgPartitionsBefore(handle.db, before);
  if (handle.dialect === 'mysql') return dropMysqlPartitionsBefore(handle.db, before);
  return Promise.resolve(0);
}
