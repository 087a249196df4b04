import { type Kysely, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { type Db, migrate, openDatabase } from '../src/db/index.ts';
import { AHEAD_DAYS, DAY, dayName, dayStart, type LogPartition } from '../src/db/log-partitions/days.ts';
import { ensureLogPartitions } from '../src/db/log-partitions/index.ts';
import { mysqlPartitions } from '../src/db/log-partitions/mysql.ts';
import { pgPartitions } from '../src/db/log-partitions/postgres.ts';
import type { Database } from '../src/db/schema.ts';
import { deleteLogsBefore } from '../src/modules/logs/store.ts';
import { runRetention } from '../src/modules/retention/job.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';

/**
 * The usage log partitioned by day on PostgreSQL and MySQL (db/log-partitions/): the upgrade keeps every row and
 * id, new rows land in their day, days are added ahead, and retention and "delete logs before" drop whole days.
 */
const ENGINES = DATABASES.filter((d) => d.name !== 'sqlite');
const now = Math.floor(Date.now() / 1000);
const today = dayStart(now);

const partitionsOf = (handle: Db): Promise<LogPartition[]> =>
  handle.dialect === 'postgres' ? pgPartitions(handle.db) : mysqlPartitions(handle.db);

/** The partition holding row `id`: PostgreSQL names its table, MySQL is asked partition by partition. */
async function partitionOfRow(handle: Db, id: number): Promise<string> {
  if (handle.dialect === 'postgres') {
    const r = await sql<{
      p: string;
    }>`SELECT tableoid::regclass::text AS p FROM logs WHERE id = ${id}`.execute(handle.db);
    return r.rows[0].p;
  }
  for (const p of await partitionsOf(handle)) {
    const r = await sql`SELECT 1 FROM logs PARTITION (${sql.raw(p.name)}) WHERE id = ${id}`.execute(
      handle.db,
    );
    if (r.rows.length) return p.name;
  }
  return '';
}

const dayPart = (handle: Db, day: number) =>
  `${handle.dialect === 'postgres' ? 'logs_' : ''}p${dayName(day)}`;

async function insertRows(db: Kysely<Database>, times: number[]): Promise<number[]> {
  const ids: number[] = [];
  for (const [i, t] of times.entries()) {
    const row = consumeLogRow({ user_id: 1, created_at: t, quota: 10 + i, request_id: `p${i}` });
    await db.insertInto('logs').values(row).execute();
    const last = await db.selectFrom('logs_extent').select('max_id').executeTakeFirstOrThrow();
    ids.push(Number(last.max_id));
  }
  return ids;
}

const quotaSum = async (db: Kysely<Database>) =>
  Number(
    (
      await db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum<number>('quota').as('q'))
        .executeTakeFirstOrThrow()
    ).q ?? 0,
  );

describe.each(ENGINES)('usage log partitions on $name', (engine) => {
  it.skipIf(!engine.available)(
    'the upgrade keeps every row and id in the first partition, and new rows land in their day',
    async () => {
      const made = await engine.create();
      const handle = await openDatabase(made.dsn, made.sqlitePath);
      try {
        await migrate(handle, '016_log_extent');
        const old = await insertRows(handle.db, [now - 40 * DAY, now - 3 * DAY, now - 3600, now]);
        const sumBefore = await quotaSum(handle.db);
        await migrate(handle);

        const parts = await partitionsOf(handle);
        expect(parts[0]).toMatchObject({ from: null, to: today + DAY });
        const days = parts.filter((p) => p.from !== null && p.to !== null);
        expect(days.map((p) => p.from)).toEqual(
          Array.from({ length: AHEAD_DAYS }, (_, i) => today + (i + 1) * DAY),
        );
        expect(parts.at(-1)?.to).toBeNull();
        for (const id of old) expect(await partitionOfRow(handle, id)).toMatch(/p0$/);
        expect(await quotaSum(handle.db)).toBe(sumBefore);

        // Ids go on from the same sequence; tomorrow's row goes to tomorrow's partition.
        const [fresh] = await insertRows(handle.db, [today + DAY + 60]);
        expect(fresh).toBeGreaterThan(Math.max(...old));
        expect(await partitionOfRow(handle, fresh)).toBe(dayPart(handle, today + DAY));

        if (handle.dialect === 'postgres') {
          // Every partition carries the parent's indexes: those of the old table were attached, not lost.
          const counts = await sql<{ t: string; n: string }>`
            SELECT tablename AS t, count(*) AS n FROM pg_indexes
            WHERE tablename IN ('logs', 'logs_p0', ${dayPart(handle, today + DAY)}) GROUP BY tablename`.execute(
            handle.db,
          );
          const n = new Set(counts.rows.map((r) => Number(r.n)));
          expect(counts.rows).toHaveLength(3);
          expect([...n]).toEqual([15]);
        }
        // Starting again changes nothing.
        await migrate(handle);
        expect((await partitionsOf(handle)).length).toBe(parts.length);
      } finally {
        await handle.close();
        await made.drop();
      }
    },
  );

  describe('days ahead, retention and deleting before a time', () => {
    let ctx: AppContext;
    let drop: () => Promise<void>;
    // The test lives in a month ahead: days are added for it as the hourly pass would add them then.
    const D = today + 20 * DAY;

    beforeAll(async () => {
      if (!engine.available) return;
      const made = await engine.create({ migrated: true });
      drop = made.drop;
      ctx = await createContext(
        loadConfig({ SQL_DSN: made.dsn, SQLITE_PATH: made.sqlitePath, SESSION_SECRET: 'log-partitions' }),
        pino({ level: 'silent' }),
      );
    }, 120_000);
    afterAll(async () => {
      await ctx?.close();
      await drop?.();
    });

    it.skipIf(!engine.available)(
      'adds the days up to a week ahead, once; a row past them is kept and finds its day later',
      async () => {
        await ensureLogPartitions(ctx.logDb, D);
        await ensureLogPartitions(ctx.logDb, D);
        const parts = await partitionsOf(ctx.logDb);
        const days = parts.filter((p) => p.from !== null && p.to !== null).map((p) => p.from as number);
        expect(days.at(-1)).toBe(D + AHEAD_DAYS * DAY);
        expect(new Set(days).size).toBe(days.length);
        for (let i = 1; i < days.length; i++) expect(days[i] - days[i - 1]).toBe(DAY);

        // A row a month past D goes to the catch-all, then stays readable when its day comes.
        const [late] = await insertRows(ctx.logDb.db, [D + 30 * DAY + 100]);
        expect(await partitionOfRow(ctx.logDb, late)).toMatch(/pdefault$|pmax$/);
        await ensureLogPartitions(ctx.logDb, D + 30 * DAY);
        // MySQL moves it into its new day; PostgreSQL keeps that one day in the catch-all (creating it would fail).
        expect(await partitionOfRow(ctx.logDb, late)).toBe(
          ctx.logDb.dialect === 'mysql' ? dayPart(ctx.logDb, D + 30 * DAY) : 'logs_pdefault',
        );
        const after = await partitionsOf(ctx.logDb);
        expect(after.some((p) => p.from === D + 31 * DAY)).toBe(true);
        await ctx.logDb.db.deleteFrom('logs').where('id', '=', late).execute();
      },
    );

    it.skipIf(!engine.available)(
      'retention drops the days wholly older than the cutoff and deletes the older rows of the next',
      async () => {
        const day10 = D + 10 * DAY;
        const day11 = D + 11 * DAY;
        await ensureLogPartitions(ctx.logDb, day11);
        const ids = await insertRows(ctx.logDb.db, [
          ...Array.from({ length: 5 }, (_, i) => day10 + 3600 * (i + 1)),
          day11 + 2 * 3600,
          day11 + 10 * 3600,
          D + 12 * DAY + 60,
        ]);
        await ctx.options.set('LogRetentionDays', '4');
        // Cutoff: four days before day 15 at 06:30, down to its hour: day 11 at 06:00.
        const result = await runRetention(ctx, {
          nowSec: D + 15 * DAY + 6 * 3600 + 1800,
          rest: async () => {},
        });
        expect(result.logs).toBe(6);
        const left = await ctx.logDb.db.selectFrom('logs').select('id').orderBy('id').execute();
        expect(left.map((r) => Number(r.id))).toEqual(ids.slice(6));
        const parts = await partitionsOf(ctx.logDb);
        expect(parts.every((p) => p.to === null || p.to > day11)).toBe(true);
        expect(parts[0].to).toBe(day11 + DAY);

        // The admin's "delete logs before": whole days and the rest, with the exact count.
        expect(await deleteLogsBefore(ctx, D + 12 * DAY + 61)).toBe(2);
        expect(await quotaSum(ctx.logDb.db)).toBe(0);
        const [fresh] = await insertRows(ctx.logDb.db, [D + 13 * DAY]);
        expect(await partitionOfRow(ctx.logDb, fresh)).toBe(dayPart(ctx.logDb, D + 13 * DAY));
      },
    );
  });
});
