import { type Kysely, sql } from 'kysely';
import { DAY, dayName, daysToAdd, firstBound, int, type LogPartition } from './days.ts';

/*
 * MySQL: `logs` partitioned by RANGE (created_at) (days.ts): `p0` first, one `p<day>` per day, and `pmax` (LESS
 * THAN MAXVALUE) last. The primary key is (id, created_at), since every unique key of a partitioned table must
 * hold the partition column; id stays AUTO_INCREMENT, first in that key.
 */
const CATCH_ALL = 'pmax';

/** The log's partitions and their ranges, oldest first; empty while `logs` is not partitioned. */
export async function mysqlPartitions(db: Kysely<any>): Promise<LogPartition[]> {
  const r = await sql<{ name: string | null; bound: string | null }>`
    SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS bound FROM information_schema.PARTITIONS
    WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'logs' ORDER BY PARTITION_ORDINAL_POSITION`.execute(db);
  const out: LogPartition[] = [];
  let from: number | null = null;
  for (const { name, bound } of r.rows) {
    if (name === null) return [];
    const to = bound === null || bound === 'MAXVALUE' ? null : Number(bound);
    out.push({ name, from, to });
    from = to;
  }
  return out;
}

const dayPartition = (day: number) => `PARTITION p${dayName(day)} VALUES LESS THAN (${int(day + DAY)})`;

/**
 * The upgrade (migration 017): the primary key takes created_at, and the table is partitioned: its rows stay in
 * `p0`, the days follow. MySQL copies the table once to do this.
 */
export async function partitionMysqlLog(db: Kysely<any>, now: number): Promise<void> {
  const newest = await sql<{ t: number | null }>`SELECT max(created_at) AS t FROM logs`.execute(db);
  const t = newest.rows[0]?.t;
  const bound = firstBound(now, t === null || t === undefined ? null : Number(t));
  await sql`ALTER TABLE logs DROP PRIMARY KEY, ADD PRIMARY KEY (id, created_at)`.execute(db);
  const days = daysToAdd(bound, now).map(dayPartition);
  await sql
    .raw(
      `ALTER TABLE logs PARTITION BY RANGE (created_at) (PARTITION p0 VALUES LESS THAN (${int(bound)}), ${days.join(', ')}, PARTITION ${CATCH_ALL} VALUES LESS THAN MAXVALUE)`,
    )
    .execute(db);
}

/** Creates the daily partitions due by `now` (at every start and hourly), split off the catch-all. */
export async function ensureMysqlDays(db: Kysely<any>, now: number): Promise<void> {
  const parts = await mysqlPartitions(db);
  const bounded = parts.filter((p) => p.to !== null);
  if (bounded.length === 0 || parts.at(-1)?.name !== CATCH_ALL) return;
  const days = daysToAdd(Math.max(...bounded.map((p) => p.to as number)), now);
  if (days.length === 0) return;
  // Rows the catch-all already holds for these days move to them: MySQL reorganises what it holds.
  await sql
    .raw(
      `ALTER TABLE logs REORGANIZE PARTITION ${CATCH_ALL} INTO (${days.map(dayPartition).join(', ')}, PARTITION ${CATCH_ALL} VALUES LESS THAN MAXVALUE)`,
    )
    .execute(db);
}

/** Drops the partitions whose every row is older than `before`; returns how many rows went. */
export async function dropMysqlPartitionsBefore(db: Kysely<any>, before: number): Promise<number> {
  const going = (await mysqlPartitions(db)).filter((p) => p.to !== null && p.to <= before);
  if (going.length === 0) return 0;
  const names = going.map((p) => p.name).join(', ');
  // One connection: the count and the drop see the same partitions (rows of days this old are no longer written).
  return db.connection().execute(async (conn) => {
    const n = await sql<{ n: number }>`SELECT count(*) AS n FROM logs PARTITION (${sql.raw(names)})`.execute(
      conn,
    );
    await sql.raw(`ALTER TABLE logs DROP PARTITION ${names}`).execute(conn);
    return Number(n.rows[0].n);
  });
}
