import { type Kysely, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { type Db, migrate, openDatabase } from '../src/db/index.ts';
import { ensureLogPartitions } from '../src/db/log-partitions/index.ts';
import { mysqlPartitions } from '../src/db/log-partitions/mysql.ts';
import { pgPartitions } from '../src/db/log-partitions/postgres.ts';
import { DAY, type LogPartition, WEEK, weekName, weekStart } from '../src/db/log-partitions/weeks.ts';
import type { Database } from '../src/db/schema.ts';
import { deleteLogsBefore } from '../src/modules/logs/store.ts';
import { runRetention } from '../src/modules/retention/job.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';

/**
 * The usage log partitioned by week on PostgreSQL and MySQL (db/log-partitions/): the upgrade keeps every row and
 * id, new rows land in their week, weeks are added ahead, and retention and "delete logs before" drop whole weeks.
 */
const ENGINES = DATABASES.filter((d) => d.name !== 'sqlite');
const now = Math.floor(Date.now() / 1000);
const thisWeek = weekStart(now);

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

const weekPart = (handle: Db, week: number) =>
  `${handle.dialect === 'postgres' ? 'logs_' : ''}${weekName(week)}`;

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
    'the upgrade keeps every row and id in the first partition, and new rows land in their week',
    async () => {
      const made = await engine.create();
      const handle = await openDatabase(made.dsn, made.sqlitePath);
      try {
        await migrate(handle, '016_log_extent');
        const old = await insertRows(handle.db, [now - 40 * DAY, now - 3 * DAY, now - 3600, now]);
        const sumBefore = await quotaSum(handle.db);
        await migrate(handle);

        // p0 up to the end of this week, next week (a week ahead of now), then pmax.
        const parts = await partitionsOf(handle);
        expect(parts.map((p) => [p.from, p.to])).toEqual([
          [null, thisWeek + WEEK],
          [thisWeek + WEEK, thisWeek + 2 * WEEK],
          [thisWeek + 2 * WEEK, null],
        ]);
        for (const id of old) expect(await partitionOfRow(handle, id)).toMatch(/p0$/);
        expect(await quotaSum(handle.db)).toBe(sumBefore);

        // Ids go on from the same sequence; next week's row goes to next week's partition.
        const [fresh] = await insertRows(handle.db, [thisWeek + WEEK + DAY]);
        expect(fresh).toBeGreaterThan(Math.max(...old));
        expect(await partitionOfRow(handle, fresh)).toBe(weekPart(handle, thisWeek + WEEK));

        if (handle.dialect === 'postgres') {
          // Every partition carries the parent's 15 indexes: those of the old table were attached, not lost.
          const counts = await sql<{ t: string; n: string }>`
            SELECT tablename AS t, count(*) AS n FROM pg_indexes
            WHERE tablename IN ('logs', 'logs_p0', ${weekPart(handle, thisWeek + WEEK)}, 'logs_pmax')
            GROUP BY tablename`.execute(handle.db);
          expect(counts.rows.map((r) => Number(r.n))).toEqual([15, 15, 15, 15]);
        }
        // Starting again changes nothing.
        await migrate(handle);
        expect(await partitionsOf(handle)).toEqual(parts);
      } finally {
        await handle.close();
        await made.drop();
      }
    },
  );

  describe('weeks ahead, retention and deleting before a time', () => {
    let ctx: AppContext;
    let drop: () => Promise<void>;
    // The test lives months ahead: weeks are added for it as the hourly pass would add them then.
    const D = thisWeek + 10 * WEEK;

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
      'adds the weeks up to a week ahead, once; a row past them is kept and moves into its week when it comes',
      async () => {
        await ensureLogPartitions(ctx.logDb, D);
        await ensureLogPartitions(ctx.logDb, D);
        const parts = await partitionsOf(ctx.logDb);
        for (let i = 1; i < parts.length; i++) expect(parts[i].from).toBe(parts[i - 1].to);
        expect(parts.at(-2)).toMatchObject({ from: D + WEEK, to: D + 2 * WEEK });
        expect(parts.at(-1)).toMatchObject({ from: D + 2 * WEEK, to: null });

        // A row ten weeks past D goes to pmax, then into its week when that week is added.
        const [late] = await insertRows(ctx.logDb.db, [D + 10 * WEEK + 100]);
        expect(await partitionOfRow(ctx.logDb, late)).toMatch(/pmax$/);
        await ensureLogPartitions(ctx.logDb, D + 10 * WEEK);
        expect(await partitionOfRow(ctx.logDb, late)).toBe(weekPart(ctx.logDb, D + 10 * WEEK));
        expect((await partitionsOf(ctx.logDb)).at(-1)).toMatchObject({ from: D + 12 * WEEK, to: null });
        expect(await quotaSum(ctx.logDb.db)).toBe(10);
        await ctx.logDb.db.deleteFrom('logs').where('id', '=', late).execute();
      },
    );

    it.skipIf(!engine.available)(
      'retention drops the weeks wholly older than the cutoff and deletes the older rows of the next',
      async () => {
        const week10 = D + 20 * WEEK;
        const week11 = D + 21 * WEEK;
        await ensureLogPartitions(ctx.logDb, week11);
        const ids = await insertRows(ctx.logDb.db, [
          ...Array.from({ length: 5 }, (_, i) => week10 + DAY * (i + 1)),
          week11 + 2 * 3600,
          week11 + 10 * 3600,
          week11 + WEEK + 60,
        ]);
        await ctx.options.set('LogRetentionDays', '4');
        // Cutoff: four days before week 11's Friday at 06:30, down to its hour: week 11's Monday at 06:00.
        const result = await runRetention(ctx, {
          nowSec: week11 + 4 * DAY + 6 * 3600 + 1800,
          rest: async () => {},
        });
        expect(result.logs).toBe(6);
        const left = await ctx.logDb.db.selectFrom('logs').select('id').orderBy('id').execute();
        expect(left.map((r) => Number(r.id))).toEqual(ids.slice(6));
        const parts = await partitionsOf(ctx.logDb);
        expect(parts.every((p) => p.to === null || p.to > week11)).toBe(true);
        expect(parts[0].to).toBe(week11 + WEEK);

        // The admin's "delete logs before": whole weeks and the rest, with the exact count.
        expect(await deleteLogsBefore(ctx, week11 + WEEK + 61)).toBe(2);
        expect(await quotaSum(ctx.logDb.db)).toBe(0);
        const [fresh] = await insertRows(ctx.logDb.db, [week11 + WEEK + DAY]);
        expect(await partitionOfRow(ctx.logDb, fresh)).toBe(weekPart(ctx.logDb, week11 + WEEK));
      },
    );
  });
});
