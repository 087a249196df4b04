import { type Kysely, sql } from 'kysely';
import { firstBound, int, type LogPartition, WEEK, weekName, weeksEnd, weeksToAdd } from './weeks.ts';

/*
 * PostgreSQL: `logs` is a table partitioned by range of created_at (weeks.ts). Its indexes are declared once on
 * the parent and made on every partition; its primary key is (id, created_at), since a partitioned table's unique
 * keys must hold the partition column (ids still come from the one sequence).
 */
const FIRST = 'logs_p0';
const LAST = 'logs_pmax';
const table = (name: string) => `logs_${name}`;
/**
 * Detaching `pmax` and dropping a partition lock the whole log; while they wait for a long query to end, every
 * insert waits behind them. They give up after this instead (the next hourly pass tries again).
 */
const LOCK_WAIT = '2s';
const EXTENT = sql`CREATE VIEW logs_extent AS SELECT
  (SELECT max(id) FROM logs) AS max_id,
  (SELECT min(created_at) FROM logs) AS min_created_at,
  (SELECT max(created_at) FROM logs) AS max_created_at`;

/** The log's partitions and their ranges, oldest first; empty while `logs` is a plain table. */
export async function pgPartitions(db: Kysely<any>): Promise<LogPartition[]> {
  const r = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass('logs')`.execute(db);
  const value = (v: string) => (/^'?-?\d+'?$/.test(v) ? Number(v.replaceAll("'", '')) : null);
  return r.rows
    .map(({ name, bound }) => {
      const m = /FROM \((.+?)\) TO \((.+?)\)/.exec(bound);
      return m ? { name, from: value(m[1]), to: value(m[2]) } : { name, from: null, to: null };
    })
    .sort((a, b) => (a.to ?? Number.MAX_SAFE_INTEGER) - (b.to ?? Number.MAX_SAFE_INTEGER));
}

/**
 * The upgrade (migration 017): the existing table becomes the first partition, indexes and all (they are
 * attached to the parent's, not built again; only the (id, created_at) key is), then the weeks follow.
 * ATTACH reads the table once to check its rows' range.
 */
export async function partitionPgLog(db: Kysely<any>, now: number): Promise<void> {
  const newest = await sql<{ t: string | null }>`SELECT max(created_at) AS t FROM logs`.execute(db);
  const t = newest.rows[0]?.t;
  const bound = firstBound(now, t === null || t === undefined ? null : Number(t));
  const indexes = await sql<{ name: string; def: string }>`
    SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
    JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = to_regnamespace(i.schemaname)
    JOIN pg_index x ON x.indexrelid = c.oid
    WHERE i.tablename = 'logs' AND i.schemaname = current_schema() AND NOT x.indisprimary`.execute(db);
  const seq = await sql<{ s: string }>`SELECT pg_get_serial_sequence('logs', 'id') AS s`.execute(db);
  const pkey = await sql<{ name: string }>`
    SELECT conname AS name FROM pg_constraint WHERE conrelid = to_regclass('logs') AND contype = 'p'`.execute(
    db,
  );

  await sql`DROP VIEW IF EXISTS logs_extent`.execute(db);
  await sql`ALTER TABLE logs RENAME TO ${sql.id(FIRST)}`.execute(db);
  // Its key becomes the parent's (id, created_at), built at the attach: a partition has one primary key.
  for (const { name } of pkey.rows)
    await sql`ALTER TABLE ${sql.id(FIRST)} DROP CONSTRAINT ${sql.id(name)}`.execute(db);
  // Index names are per schema: the old table's indexes take its name, the parent's take theirs.
  for (const ix of indexes.rows) {
    const renamed = `${FIRST}_${ix.name.replace(/^idx_logs_/, '')}`;
    await sql`ALTER INDEX ${sql.id(ix.name)} RENAME TO ${sql.id(renamed)}`.execute(db);
  }
  await sql`CREATE TABLE logs (LIKE ${sql.id(FIRST)} INCLUDING DEFAULTS) PARTITION BY RANGE (created_at)`.execute(
    db,
  );
  if (seq.rows[0]?.s) await sql`ALTER SEQUENCE ${sql.raw(seq.rows[0].s)} OWNED BY logs.id`.execute(db);
  await sql`ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (id, created_at)`.execute(db);
  for (const ix of indexes.rows)
    await sql.raw(ix.def.replace(/ ON (?:\S+\.)?logs /, ' ON logs ')).execute(db);
  await sql`ALTER TABLE logs ATTACH PARTITION ${sql.id(FIRST)}
    FOR VALUES FROM (MINVALUE) TO (${sql.raw(int(bound))})`.execute(db);
  await createPgWeeks(db, bound, now);
  await EXTENT.execute(db);
}

/** Creates the weeks from `last` to AHEAD after `now` and `pmax` after them; returns where they end. */
async function createPgWeeks(db: Kysely<any>, last: number, now: number): Promise<number> {
  let end = last;
  for (const week of weeksToAdd(last, now)) {
    await sql`CREATE TABLE ${sql.id(table(weekName(week)))} PARTITION OF logs
      FOR VALUES FROM (${sql.raw(int(week))}) TO (${sql.raw(int(week + WEEK))})`.execute(db);
    end = week + WEEK;
  }
  await sql`CREATE TABLE ${sql.id(LAST)} PARTITION OF logs FOR VALUES FROM (${sql.raw(int(end))}) TO (MAXVALUE)`.execute(
    db,
  );
  return end;
}

/**
 * Creates the weeks due by `now` (at every start and hourly): `pmax` is detached, the weeks created, the rows it
 * held for them moved into them, and `pmax` attached again after them, in one transaction. Inserts wait for it
 * (a weekly moment; `pmax` is normally empty).
 */
export async function ensurePgWeeks(db: Kysely<any>, now: number): Promise<void> {
  const parts = await pgPartitions(db);
  if (!parts.some((p) => p.name === LAST)) return;
  const last = weeksEnd(parts);
  if (weeksToAdd(last, now).length === 0) return;
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_WAIT)}`.execute(trx);
    await sql`ALTER TABLE logs DETACH PARTITION ${sql.id(LAST)}`.execute(trx);
    await sql`ALTER TABLE ${sql.id(LAST)} RENAME TO logs_pmax_old`.execute(trx);
    const end = await createPgWeeks(trx, last, now);
    await sql`INSERT INTO logs SELECT * FROM logs_pmax_old WHERE created_at < ${end}`.execute(trx);
    await sql`INSERT INTO ${sql.id(LAST)} SELECT * FROM logs_pmax_old WHERE created_at >= ${end}`.execute(
      trx,
    );
    await sql`DROP TABLE logs_pmax_old`.execute(trx);
  });
}

/** Drops the partitions whose every row is older than `before`; returns how many rows went. */
export async function dropPgPartitionsBefore(db: Kysely<any>, before: number): Promise<number> {
  let rows = 0;
  for (const p of await pgPartitions(db)) {
    if (p.to === null || p.to > before) continue;
    await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_WAIT)}`.execute(trx);
      await sql`LOCK TABLE ${sql.id(p.name)} IN ACCESS EXCLUSIVE MODE`.execute(trx);
      const n = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.id(p.name)}`.execute(trx);
      await sql`DROP TABLE ${sql.id(p.name)}`.execute(trx);
      rows += Number(n.rows[0].n);
    });
  }
  return rows;
}
