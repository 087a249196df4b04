import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Insertable, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../src/db/schema.ts';
import { issueAccessToken } from '../src/modules/auth/access-token.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { readHourlyMark } from '../src/modules/data/mark.ts';
import { hourlySums } from '../src/modules/logs/stat-hourly.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';
import { seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const HOUR = 3600;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-haiku', 'deepseek-chat'];

/** A small deterministic generator, so a failing range can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Row = Insertable<LogsTable>;

/** Rows of every type, models and users, at random seconds between `from` and `to`. */
function randomRows(rand: () => number, n: number, from: number, to: number): Row[] {
  return Array.from({ length: n }, () => {
    const roll = rand();
    const type = roll < 0.8 ? 2 : roll < 0.85 ? 1 : roll < 0.9 ? 4 : 5;
    const user = 1 + Math.floor(rand() * 5);
    return consumeLogRow({
      user_id: user,
      username: `user${user}`,
      token_name: `token-${user}`,
      created_at: from + Math.floor(rand() * (to - from)),
      type,
      model_name: type === 1 ? '' : MODELS[Math.floor(rand() * MODELS.length)],
      quota: type === 2 ? Math.floor(rand() * 5000) : type === 1 ? 100_000 : 0,
      prompt_tokens: Math.floor(rand() * 900),
      completion_tokens: Math.floor(rand() * 300),
      channel_id: 1 + Math.floor(rand() * 3),
      group: rand() < 0.3 ? 'vip' : 'default',
    });
  });
}

interface Filter {
  start_timestamp?: number;
  end_timestamp?: number;
  model_name?: string;
  type?: number;
  username?: string;
}

/** What the plain query answers: consumption rows under the filter, summed here from the rows themselves. */
function expectedStat(rows: Row[], f: Filter) {
  const hit = rows.filter(
    (r) =>
      r.type === 2 &&
      (!f.start_timestamp || r.created_at >= f.start_timestamp) &&
      (!f.end_timestamp || r.created_at <= f.end_timestamp) &&
      (!f.model_name || r.model_name === f.model_name) &&
      (!f.username || r.username === f.username),
  );
  const quota = hit.reduce((s, r) => s + Number(r.quota), 0);
  const prompt = hit.reduce((s, r) => s + Number(r.prompt_tokens), 0);
  const completion = hit.reduce((s, r) => s + Number(r.completion_tokens), 0);
  return { quota, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The dashboard's all-users rows (model x hour), summed here from the rows. */
function expectedDashboard(rows: Row[], start: number, end: number) {
  const buckets = new Map<
    string,
    { model_name: string; created_at: number; count: number; quota: number; token_used: number }
  >();
  for (const r of rows) {
    const hour = r.created_at - (r.created_at % HOUR);
    if (r.type !== 2 || (start && hour < start) || (end && hour > end)) continue;
    const key = `${hour}|${r.model_name}`;
    const b = buckets.get(key) ?? {
      model_name: r.model_name,
      created_at: hour,
      count: 0,
      quota: 0,
      token_used: 0,
    };
    b.count += 1;
    b.quota += Number(r.quota);
    b.token_used += Number(r.prompt_tokens) + Number(r.completion_tokens);
    buckets.set(key, b);
  }
  return [...buckets.values()]
    .sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : 1))
    .map((b) => ({ id: 0, user_id: 0, username: '', ...b }));
}

/** A range the console could send: aligned hours, a second off them, anywhere, or open at either end. */
function randomRange(rand: () => number, from: number, to: number): Filter {
  const at = () => {
    const t = from + Math.floor(rand() * (to - from));
    const kind = rand();
    if (kind < 0.25) return t - (t % HOUR);
    if (kind < 0.4) return t - (t % HOUR) - 1;
    if (kind < 0.5) return t - (t % HOUR) + 1;
    return t;
  };
  let start = rand() < 0.15 ? 0 : at();
  let end = rand() < 0.15 ? 0 : at();
  if (start && end && start > end) [start, end] = [end, start];
  const f: Filter = {};
  if (start) f.start_timestamp = start;
  if (end) f.end_timestamp = end;
  if (rand() < 0.35) f.model_name = MODELS[Math.floor(rand() * MODELS.length)];
  // The stat counts consumption whatever type is asked for.
  if (rand() < 0.2) f.type = 5;
  return f;
}

const query = (f: Filter) =>
  new URLSearchParams(Object.entries(f).map(([k, v]): [string, string] => [k, String(v)])).toString();

async function insertRows(db: TestServer['ctx']['logDb'], rows: Row[]) {
  for (let i = 0; i < rows.length; i += 400)
    await db.db
      .insertInto('logs')
      .values(rows.slice(i, i + 400))
      .execute();
}

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
    const assertStats = async (count: number, seed: number, opts: { served: boolean }) => {
      const r = rng(seed);
      let served = 0;
      for (let i = 0; i < count; i++) {
        const f = randomRange(r, from - HOUR, now + HOUR);
        expect(await stat(f), JSON.stringify(f)).toEqual(expectedStat(logRows, f));
        if (await hourlySums(server.ctx.logDb, f)) served++;
      }
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
      for (let i = 0; i < 25; i++) {
        const f = randomRange(r, from - HOUR, now + HOUR);
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
        expect(got).toEqual(rows);
      }
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

describe('hourly buckets with the usage log in its own database, after an upgrade', () => {
  let server: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-hourly-'));
    server = await startServer({ env: { LOG_SQL_DSN: `local:${join(dir, 'logs.db')}` } });
  });
  afterAll(() => server?.close());

  it('keeps the dashboard history exported before log_hourly existed, and the stat reads the log database', async () => {
    const { id } = await seedUser(server.ctx, { quota: 0, role: 10, username: 'root2' });
    const headers = {
      authorization: `Bearer ${await issueAccessToken(server.ctx, id)}`,
      'new-api-user': String(id),
    };
    const hour = Math.floor(Date.now() / 1000 / HOUR) * HOUR - 10 * HOUR;
    // History whose log rows retention deleted long ago: only quota_data has it.
    await server.ctx.db.db
      .insertInto('quota_data')
      .values([
        {
          user_id: 7,
          username: 'old',
          model_name: 'gpt-4o',
          created_at: hour - 48 * HOUR,
          count: 3,
          quota: 30,
          token_used: 300,
        },
        {
          user_id: 8,
          username: 'old2',
          model_name: 'gpt-4o',
          created_at: hour - 48 * HOUR,
          count: 1,
          quota: 5,
          token_used: 50,
        },
      ])
      .execute();
    const rows = [
      consumeLogRow({
        user_id: 1,
        username: 'a',
        model_name: 'gpt-4o',
        created_at: hour + 10,
        quota: 40,
        prompt_tokens: 4,
        completion_tokens: 1,
      }),
      consumeLogRow({
        user_id: 2,
        username: 'b',
        model_name: 'gpt-4o',
        created_at: hour + 4000,
        quota: 60,
        prompt_tokens: 6,
        completion_tokens: 2,
      }),
    ];
    await server.ctx.logDb.db.insertInto('logs').values(rows).execute();
    await exportQuotaData(server.ctx);

    expect(await server.ctx.db.db.selectFrom('log_hourly').selectAll().execute()).toEqual([]);
    const data = await fetch(`${server.url}/api/data/?start_timestamp=0&end_timestamp=0`, { headers }).then(
      (r) => r.json() as any,
    );
    expect(data.data).toEqual([
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour - 48 * HOUR,
        count: 4,
        quota: 35,
        token_used: 350,
      },
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour,
        count: 1,
        quota: 40,
        token_used: 5,
      },
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour + HOUR,
        count: 1,
        quota: 60,
        token_used: 8,
      },
    ]);

    const f = { start_timestamp: hour - HOUR, end_timestamp: hour + 3 * HOUR };
    expect(await hourlySums(server.ctx.logDb, f)).toEqual({
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 3,
    });
    const st = await fetch(`${server.url}/api/log/stat?${query(f)}`, { headers }).then(
      (r) => r.json() as any,
    );
    expect(st.data).toMatchObject({ quota: 100, prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });
});
