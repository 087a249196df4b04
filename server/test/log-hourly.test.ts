import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../src/modules/auth/access-token.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { readHourlyMark } from '../src/modules/data/mark.ts';
import { hourlySums } from '../src/modules/logs/stat-hourly.ts';
import { DATABASES } from './support/databases.ts';
import {
  expectedDashboard,
  expectedStat,
  type Filter,
  HOUR,
  insertRows,
  query,
  type Row,
  randomRange,
  randomRows,
  rng,
} from './support/hourly-logs.ts';
import { seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The hourly buckets (log_hourly, quota_data) the export keeps, checked against the usage log itself on every
 * engine: the stat and the dashboard answer exactly what a plain query over the rows would, for random ranges.
 */
for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`hourly log buckets on ${engine.name}`, () => {
    let server: TestServer;
    let headers: Record<string, string>;
    const rand = rng(20240611);
    const now = Math.floor(Date.now() / 1000);
    const from = now - 3 * 86_400 - 1234;
    // Every row the log has had, including those deleted later: the dashboard keeps their buckets.
    const everRows: Row[] = [];
    // The rows the log holds now: what the stat counts.
    let logRows: Row[] = [];

    beforeAll(async () => {
      server = await startServer({ db: engine });
      const { id } = await seedUser(server.ctx, { quota: 0, role: 10, username: 'hourly-admin' });
      headers = {
        authorization: `Bearer ${await issueAccessToken(server.ctx, id)}`,
        'new-api-user': String(id),
      };
    }, 60_000);
    afterAll(() => server?.close());

    const add = async (rows: Row[]) => {
      await insertRows(server.ctx.logDb, rows);
      everRows.push(...rows);
      logRows.push(...rows);
    };
    const get = async (path: string) => {
      const r = await fetch(`${server.url}${path}`, { headers });
      const body = (await r.json()) as { success: boolean; message?: string; data: any };
      expect(body.success, body.message).toBe(true);
      return body.data;
    };
    const stat = async (f: Filter) => {
      const d = await get(`/api/log/stat?${query(f)}`);
      return {
        quota: d.quota,
        prompt_tokens: d.prompt_tokens,
        completion_tokens: d.completion_tokens,
        total_tokens: d.total_tokens,
      };
    };
    /** The buckets a full rebuild from the log would write, summed over their channels. */
    const rebuilt = async () => {
      const rows = await server.ctx.logDb.db
        .selectFrom('log_hourly')
        .select((eb) => [
          'created_at',
          'model_name',
          eb.fn.sum('count').as('count'),
          eb.fn.sum('quota').as('quota'),
          eb.fn.sum(sql<number>`prompt_tokens + completion_tokens`).as('token_used'),
        ])
        .groupBy(['created_at', 'model_name'])
        .orderBy('created_at')
        .orderBy('model_name')
        .execute();
      return rows.map((r) => ({
        created_at: Number(r.created_at),
        model_name: r.model_name,
        count: Number(r.count),
        quota: Number(r.quota),
        token_used: Number(r.token_used),
      }));
    };
    /**
     * `count` random ranges of the seed: the stat of each equals the plain query's, and the buckets served most
     * (or none). The ranges are read at the same time: each is a round trip a busy machine makes slow, and
     * none changes what another reads.
     */
    const assertStats = async (count: number, seed: number, opts: { served: boolean }) => {
      const r = rng(seed);
      const ranges = Array.from({ length: count }, () => randomRange(r, from - HOUR, now + HOUR));
      const answers = await Promise.all(
        ranges.map(async (f) => ({ f, got: await stat(f), sums: await hourlySums(server.ctx.logDb, f) })),
      );
      for (const { f, got } of answers) expect(got, JSON.stringify(f)).toEqual(expectedStat(logRows, f));
      const served = answers.filter((a) => a.sums).length;
      // Most random ranges span a whole hour: the buckets must actually have answered them.
      if (opts.served) expect(served).toBeGreaterThan(count / 2);
      else expect(served).toBe(0);
    };

    it('the stat equals the plain query before the first export (no buckets yet, the log answers)', async () => {
      await add(randomRows(rand, 3000, from, now - 600));
      await assertStats(20, 1, { served: false });
    });

    it('after an export the buckets hold exactly what the log holds, and a second export changes nothing', async () => {
      const r = await exportQuotaData(server.ctx);
      expect(r.hourly).toBeGreaterThan(50);
      const buckets = await rebuilt();
      expect(buckets).toEqual(
        expectedDashboard(everRows, 0, 0).map(({ created_at, model_name, count, quota, token_used }) => ({
          created_at,
          model_name,
          count,
          quota,
          token_used,
        })),
      );
      const mark = await readHourlyMark(server.ctx.logDb.db);
      const top = await server.ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      expect(mark?.lastId).toBe(Number(top.id));

      const quotaData = () =>
        server.ctx.db.db
          .selectFrom('quota_data')
          .selectAll()
          .orderBy('created_at')
          .orderBy('user_id')
          .orderBy('model_name')
          .execute();
      const before = (await quotaData()).map(({ id: _id, ...rest }) => rest);
      await exportQuotaData(server.ctx);
      expect(await rebuilt()).toEqual(buckets);
      expect((await quotaData()).map(({ id: _id, ...rest }) => rest)).toEqual(before);
      expect(await readHourlyMark(server.ctx.logDb.db)).toMatchObject({ lastId: mark?.lastId });
    });

    it('the stat equals the plain query for random ranges, partial hours included', async () => {
      await assertStats(60, 2, { served: true });
    });

    it('counts rows written after the last export, also late ones of hours already exported', async () => {
      // New rows of the current hours, and rows with old times (a late batch, or history imported later).
      await add(randomRows(rand, 300, now - 1800, now - 5));
      await add(randomRows(rand, 200, from, now - 2 * 86_400));
      await assertStats(40, 3, { served: true });
      // Everything at once: the whole log, then only the rows above the mark within whole hours.
      expect(await stat({})).toEqual(expectedStat(logRows, {}));
      const h = now - (now % HOUR);
      expect(await stat({ start_timestamp: h - 5 * HOUR, end_timestamp: h - 1 })).toEqual(
        expectedStat(logRows, { start_timestamp: h - 5 * HOUR, end_timestamp: h - 1 }),
      );

      // The next export folds the old-time rows into their buckets too.
      await exportQuotaData(server.ctx);
      expect(await rebuilt()).toEqual(
        expectedDashboard(everRows, 0, 0).map(({ created_at, model_name, count, quota, token_used }) => ({
          created_at,
          model_name,
          count,
          quota,
          token_used,
        })),
      );
      await assertStats(40, 4, { served: true });
    });

    it('the all-users dashboard equals the per-user buckets summed, for random ranges', async () => {
      const r = rng(5);
      const ranges = Array.from({ length: 25 }, () => randomRange(r, from - HOUR, now + HOUR));
      await Promise.all(
        ranges.map(async (f) => {
          const start = f.start_timestamp ?? 0;
          const end = f.end_timestamp ?? 0;
          const got = await get(`/api/data/?start_timestamp=${start}&end_timestamp=${end}`);
          expect(got, JSON.stringify(f)).toEqual(expectedDashboard(everRows, start, end));
          // The plain query over quota_data, as the dashboard read it before log_hourly.
          let plain = server.ctx.db.db
            .selectFrom('quota_data')
            .select((eb) => [
              'model_name',
              'created_at',
              eb.fn.sum('count').as('count'),
              eb.fn.sum('quota').as('quota'),
              eb.fn.sum('token_used').as('token_used'),
            ])
            .groupBy(['model_name', 'created_at'])
            .orderBy('created_at')
            .orderBy('model_name');
          if (start) plain = plain.where('created_at', '>=', start);
          if (end) plain = plain.where('created_at', '<=', end);
          const rows = (await plain.execute()).map((p) => ({
            id: 0,
            user_id: 0,
            username: '',
            model_name: p.model_name,
            created_at: Number(p.created_at),
            count: Number(p.count),
            quota: Number(p.quota),
            token_used: Number(p.token_used),
          }));
          expect(got, JSON.stringify(f)).toEqual(rows);
        }),
      );
    });

    it('filters the buckets cannot answer (user, token, channel, group) go to the log and stay exact', async () => {
      for (const f of [
        { username: 'user2' },
        { username: 'user3', model_name: 'gpt-4o', start_timestamp: from + 7 * HOUR + 5 },
      ]) {
        expect(await hourlySums(server.ctx.logDb, f)).toBeUndefined();
        expect(await stat(f)).toEqual(expectedStat(logRows, f));
      }
      for (const f of [{ token_name: 'token-1' }, { channel: 2 }, { group: 'vip' }])
        expect(await hourlySums(server.ctx.logDb, f)).toBeUndefined();
    });

    it('after old rows are deleted the stat still equals the log, and the export keeps their buckets', async () => {
      // An admin's cleanup at a time inside an hour: that hour's bucket still holds the deleted rows.
      const cut = from + 20 * HOUR + 1234;
      const r = await fetch(`${server.url}/api/log/?target_timestamp=${cut}`, { method: 'DELETE', headers });
      expect(r.status).toBe(200);
      logRows = logRows.filter((row) => row.created_at >= cut);
      expect(await stat({})).toEqual(expectedStat(logRows, {}));
      expect(await stat({ start_timestamp: from, end_timestamp: cut + 3 * HOUR })).toEqual(
        expectedStat(logRows, { start_timestamp: from, end_timestamp: cut + 3 * HOUR }),
      );
      await assertStats(30, 6, { served: true });

      await add(randomRows(rand, 100, now - 900, now - 5));
      await exportQuotaData(server.ctx);
      await assertStats(20, 7, { served: true });
      // The dashboard still charts the deleted hours.
      expect(await get(`/api/data/?start_timestamp=0&end_timestamp=0`)).toEqual(
        expectedDashboard(everRows, 0, 0),
      );
    });
  });
}
