import { type Kysely, sql } from 'kysely';
import { firstBound, int, type LogPartition, WEEK, weekName, weeksEnd, weeksToAdd } from './weeks.ts';

/*
 * MySQL: `logs` partitioned by RANGE (created_at) (weeks.ts): `p0` first, one `p<Monday>` per week, and `pmax`
 * (LESS THAN MAXVALUE) last. The primary key is (id, created_at), since every unique key of a partitioned table
 * must hold the partition column; id stays AUTO_INCREMENT, first in that key.
 */
const LAST = 'pmax';

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

const weekPartition = (week: number) => `PARTITION ${weekName(week)} VALUES LESS THAN (${int(week + WEEK)})`;
const lastPartition = `PARTITION ${LAST} VALUES LESS THAN MAXVALUE`;

/**
 * The upgrade (migration 017): the primary key takes created_at, and the table is partitioned: its rows stay in
 * `p0`, the weeks follow. MySQL copies the table once to do this.
 */
export async function partitionMysqlLog(db: Kysely<any>, now: number): Promise<void> {
  const newest = await sql<{ t: number | null }>`SELECT max(created_at) AS t FROM logs`.execute(db);
  const t = newest.rows[0]?.t;
  const bound = firstBound(now, t === null || t === undefined ? null : Number(t));
  await sql`ALTER TABLE logs DROP PRIMARY KEY, ADD PRIMARY KEY (id, created_at)`.execute(db);
  const parts = [
    `PARTITION p0 VALUES LESS THAN (${int(bound)})`,
    ...weeksToAdd(bound, now).map(weekPartition),
  ];
  await sql
    .raw(`ALTER TABLE logs PARTITION BY RANGE (created_at) (${[...parts, lastPartition].join(', ')})`)
    .execute(db);
}

/** Creates the weeks due by `now` (at every start and hourly), split off `pmax`; the rows it held for them move. */
export async function ensureMysqlWeeks(db: Kysely<any>, now: number): Promise<void> {
  const parts = await mysqlPartitions(db);
  if (parts.at(-1)?.name !== LAST) return;
  const weeks = weeksToAdd(weeksEnd(parts), now);
  if (weeks.length === 0) return;
  await sql
    .raw(
      `ALTER TABLE logs REORGANIZE PARTITION ${LAST} INTO (${[...weeks.map(weekPartition), lastPartition].join(', ')})`,
    )
    .execute(db);
}

/** Drops the partitions whose every row is older than `before`; returns how many rows went. */
export async function dropMysqlPartitionsBefore(db: Kysely<any>, before: number): Promise<number> {
  const going = (await mysqlPartitions(db)).filter((p) => p.to !== null && p.to <= before);
  if (going.length === 0) return 0;
  const names = going.map((p) => p.name).join(', ');
  // One connection: the count and the drop see the same partitions (rows of weeks this old are no longer written).
  return db.connection().execute(async (conn) => {
    const n = await sql<{ n: number }>`SELECT count(*) AS n FROM logs PARTITION (${sql.raw(names)})`.execute(
      conn,
    );
    await sql.raw(`ALTER TABLE logs DROP PARTITION ${names}`).execute(conn);
    return Number(n.rows[0].n);
  });
}
