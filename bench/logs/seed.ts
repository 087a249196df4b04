import { type Insertable, sql } from 'kysely';
import type { Db } from '../../server/src/db/index.ts';
import { LIVE } from '../../server/src/db/log-chunks/layout.ts';
import { noteLiveRows } from '../../server/src/db/log-chunks/rollover.ts';
import { pgPartitions } from '../../server/src/db/log-partitions/postgres.ts';
import { WEEK, weekName, weekStart } from '../../server/src/db/log-partitions/weeks.ts';
import type { LogsTable } from '../../server/src/db/schema.ts';
import { userRow } from '../../server/test/support/account-rows.ts';
import { DAYS, makeRow, rng, USERS } from './rows.ts';

type Row = Insertable<LogsTable>;

const COLUMNS = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'token_id',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'first_time',
  'is_stream',
  'channel_id',
  'group',
  'ip',
  'request_id',
  'other',
] as const satisfies ReadonlyArray<keyof Row>;

/** PostgreSQL array type of each column, for the unnest() bulk insert. */
const PG_TYPES: Record<(typeof COLUMNS)[number], string> = {
  user_id: 'bigint',
  created_at: 'bigint',
  type: 'int',
  content: 'text',
  username: 'text',
  token_name: 'text',
  token_id: 'bigint',
  model_name: 'text',
  quota: 'bigint',
  prompt_tokens: 'bigint',
  completion_tokens: 'bigint',
  use_time: 'bigint',
  first_time: 'bigint',
  is_stream: 'int',
  channel_id: 'bigint',
  group: 'text',
  ip: 'text',
  request_id: 'text',
  other: 'text',
};

const BATCH = 10_000;

/** The secondary indexes of `logs` on PostgreSQL (name and the statement that creates it); MySQL is not seeded. */
async function logIndexes(handle: Db): Promise<Array<{ name: string; ddl: string }>> {
  if (handle.dialect === 'postgres') {
    const r = await sql<{ indexname: string; indexdef: string }>`
      SELECT i.indexname, i.indexdef FROM pg_indexes i
      JOIN pg_class c ON c.relname = i.indexname
      JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.tablename = 'logs' AND NOT x.indisprimary`.execute(handle.db);
    // A partitioned table's index is shown `ON ONLY logs` (the parent alone); made again it must reach every day.
    return r.rows.map((x) => ({ name: x.indexname, ddl: x.indexdef.replace(' ON ONLY ', ' ON ') }));
  }
  return [];
}

/** Inserts rows [from, to) of the generated table through the fastest path each engine offers. */
function makeWriter(handle: Db): (rows: Row[]) => Promise<void> {
  if (handle.dialect === 'sqlite' && handle.sqlite) {
    const sqlite = handle.sqlite;
    const cols = COLUMNS.map((c) => `"${c}"`).join(', ');
    // Into the live table, closed as an indexed chunk every LOG_CHUNK_ROWS rows, as the ledger writes it.
    const stmt = sqlite.prepare(
      `INSERT INTO ${LIVE} (${cols}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    );
    const many = sqlite.transaction((rows: Row[]) => {
      for (const r of rows) stmt.run(r);
    });
    return async (rows) => {
      many(rows);
      await noteLiveRows(handle, rows.length);
    };
  }
  if (handle.dialect === 'postgres') {
    // One statement per batch: a parameter per column holding an array, instead of one per value.
    const cols = sql.join(COLUMNS.map((c) => sql.ref(c)));
    return async (rows) => {
      const arrays = COLUMNS.map((c) => sql`${rows.map((r) => r[c])}::${sql.raw(PG_TYPES[c])}[]`);
      await sql`INSERT INTO logs (${cols}) SELECT * FROM unnest(${sql.join(arrays)})`.execute(handle.db);
    };
  }
  return async (rows) => {
    for (let i = 0; i < rows.length; i += 1000)
      await handle.db
        .insertInto('logs')
        .values(rows.slice(i, i + 1000))
        .execute();
  };
}

/**
 * Lays the empty log's weekly partitions out from the seeded rows' first week, as a gateway that has run since then
 * has them (a fresh one's `p0` holds everything before its first week).
 */
async function startWeeksAt(handle: Db, start: number): Promise<void> {
  const parts = await pgPartitions(handle.db);
  const first = weekStart(start);
  const firstWeek = parts.find((p) => p.name === 'logs_p0')?.to ?? first;
  await sql`DROP TABLE logs_p0`.execute(handle.db);
  await sql`CREATE TABLE logs_p0 PARTITION OF logs FOR VALUES FROM (MINVALUE) TO (${sql.raw(String(first))})`.execute(
    handle.db,
  );
  for (let w = first; w < firstWeek; w += WEEK)
    await sql`CREATE TABLE ${sql.id(`logs_${weekName(w)}`)} PARTITION OF logs
      FOR VALUES FROM (${sql.raw(String(w))}) TO (${sql.raw(String(w + WEEK))})`.execute(handle.db);
}

/**
 * Fills `logs` with `rows` generated rows ending now. The secondary indexes are dropped during the load and
 * built again afterwards (much faster than maintaining seven indexes row by row), then statistics are taken
 * as autovacuum / ANALYZE would on a live server.
 */
export async function seedLogRows(handle: Db, rows: number, log = console.log): Promise<void> {
  // On SQLite the chunks get their indexes as they close (db/log-chunks/).
  const indexes = handle.sqlite ? [] : await logIndexes(handle);
  for (const ix of indexes) await sql`DROP INDEX ${sql.ref(ix.name)}`.execute(handle.db);

  const write = makeWriter(handle);
  const now = Math.floor(Date.now() / 1000);
  const start = now - DAYS * 86_400;
  if (handle.dialect === 'postgres') await startWeeksAt(handle, start);
  const rand = rng(42);
  const began = performance.now();
  let pending: Promise<void> = Promise.resolve();
  for (let done = 0; done < rows; ) {
    const upto = Math.min(rows, done + BATCH);
    const batch: Row[] = [];
    for (let i = done; i < upto; i++) batch.push(makeRow(i, rows, start, rand));
    // The next batch is generated while the database writes this one.
    await pending;
    pending = write(batch);
    done = upto;
    if (done % 500_000 === 0 || done === rows) {
      const s = (performance.now() - began) / 1000;
      log(
        `  ${done.toLocaleString('en')} rows in ${s.toFixed(0)} s (${Math.round(done / s).toLocaleString('en')} rows/s)`,
      );
    }
  }
  await pending;

  const t0 = performance.now();
  await handle.db.connection().execute(async (conn) => {
    if (handle.dialect === 'postgres') await sql`SET maintenance_work_mem = '512MB'`.execute(conn);
    for (const ix of indexes) await sql.raw(ix.ddl).execute(conn);
  });
  log(`  ${indexes.length} indexes built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  // SQLite's chunks run without statistics, as the gateway leaves them.
  if (handle.dialect === 'postgres') await sql`VACUUM ANALYZE logs`.execute(handle.db);
}

/** Users user1..userN with the ids the log rows carry, plus an administrator; returns the admin's id. */
export async function seedLogUsers(handle: Db): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const user = (id: number, username: string, role: number) => ({
    id,
    username_key: username.toLowerCase(),
    ...userRow({ username, role, aff_code: `bench${id}`, created_at: now }),
  });
  const all = Array.from({ length: USERS }, (_, i) => user(i + 1, `user${i + 1}`, 1));
  const adminId = USERS + 1;
  all.push(user(adminId, 'bench-admin', 100));
  for (let i = 0; i < all.length; i += 200)
    await handle.db
      .insertInto('users')
      .values(all.slice(i, i + 200) as never)
      .execute();
  // Explicit ids leave PostgreSQL's sequence behind; move it past them.
  if (handle.dialect === 'postgres')
    await sql`SELECT setval(pg_get_serial_sequence('users', 'id'), ${adminId})`.execute(handle.db);
  return adminId;
}
