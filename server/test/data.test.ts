import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../src/modules/auth/access-token.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';
import { seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const HOUR = 3600;

async function makeUser(server: TestServer, username: string, role: number) {
  const { id } = await seedUser(server.ctx, { quota: 0, role, username });
  const token = await issueAccessToken(server.ctx, id);
  return { id, headers: { authorization: `Bearer ${token}`, 'new-api-user': String(id) } };
}

function consumeLog(
  userId: number,
  username: string,
  model: string,
  createdAt: number,
  quota: number,
  tokens: [number, number],
) {
  return consumeLogRow({
    user_id: userId,
    username,
    model_name: model,
    created_at: createdAt,
    quota,
    prompt_tokens: tokens[0],
    completion_tokens: tokens[1],
  });
}

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`dashboard data on ${engine.name}`, () => {
    let server: TestServer;
    let admin: Awaited<ReturnType<typeof makeUser>>;
    let alice: Awaited<ReturnType<typeof makeUser>>;
    const base = Math.floor(Date.now() / 1000 / HOUR) * HOUR - 5 * HOUR;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await makeUser(server, 'admin1', 10);
      alice = await makeUser(server, 'alice', 1);
    });
    afterAll(() => server?.close());

    const get = (path: string, headers: Record<string, string>) =>
      fetch(`${server.url}${path}`, { headers }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
      }));

    it('aggregates consume logs per user, model and hour, and a second run changes nothing', async () => {
      await server.ctx.logDb.db
        .insertInto('logs')
        .values([
          consumeLog(alice.id, 'alice', 'gpt-4o-mini', base + 10, 100, [10, 5]),
          consumeLog(alice.id, 'alice', 'gpt-4o-mini', base + 3599, 50, [1, 2]),
          consumeLog(alice.id, 'alice', 'gpt-4o', base + HOUR, 700, [100, 0]),
          consumeLog(admin.id, 'admin1', 'gpt-4o-mini', base + 20, 9, [3, 3]),
          // Not consumption: top-up and error rows are not counted.
          { ...consumeLog(alice.id, 'alice', '', base + 30, 500000, [0, 0]), type: 1 },
          { ...consumeLog(alice.id, 'alice', 'gpt-4o-mini', base + 40, 0, [0, 0]), type: 5 },
        ])
        .execute();
      await exportQuotaData(server.ctx);
      const rows = await server.ctx.db.db
        .selectFrom('quota_data')
        .selectAll()
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
      const simple = rows.map((r) => [
        Number(r.user_id),
        r.username,
        r.model_name,
        Number(r.created_at),
        Number(r.count),
        Number(r.quota),
        Number(r.token_used),
      ]);
      expect(simple).toEqual([
        [admin.id, 'admin1', 'gpt-4o-mini', base, 1, 9, 6],
        [alice.id, 'alice', 'gpt-4o-mini', base, 2, 150, 18],
        [alice.id, 'alice', 'gpt-4o', base + HOUR, 1, 700, 100],
      ]);

      await exportQuotaData(server.ctx);
      const again = await server.ctx.db.db
        .selectFrom('quota_data')
        .selectAll()
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
      expect(
        again.map((r) => [
          Number(r.user_id),
          r.model_name,
          Number(r.created_at),
          Number(r.count),
          Number(r.quota),
        ]),
      ).toEqual(simple.map((r) => [r[0], r[2], r[3], r[4], r[5]]));
    });

    it('picks up rows written after the last run, including late rows of the last hour, without double counting', async () => {
      await server.ctx.logDb.db
        .insertInto('logs')
        .values([
          consumeLog(alice.id, 'alice', 'gpt-4o', base + HOUR + 100, 300, [30, 0]),
          consumeLog(alice.id, 'alice', 'gpt-4o', base + 2 * HOUR + 1, 1, [1, 0]),
        ])
        .execute();
      await exportQuotaData(server.ctx);
      await exportQuotaData(server.ctx);
      const rows = await server.ctx.db.db
        .selectFrom('quota_data')
        .selectAll()
        .where('user_id', '=', alice.id)
        .where('model_name', '=', 'gpt-4o')
        .orderBy('created_at')
        .execute();
      expect(
        rows.map((r) => [Number(r.created_at), Number(r.count), Number(r.quota), Number(r.token_used)]),
      ).toEqual([
        [base + HOUR, 2, 1000, 130],
        [base + 2 * HOUR, 1, 1, 1],
      ]);
      const total = rows.reduce((s, r) => s + Number(r.quota), 0);
      const logged = await server.ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum('quota').as('q'))
        .where('user_id', '=', alice.id)
        .where('model_name', '=', 'gpt-4o')
        .where('type', '=', 2)
        .executeTakeFirstOrThrow();
      expect(total).toBe(Number(logged.q));
    });

    it('GET /api/data/ sums every user per model and hour for admins, or filters one username', async () => {
      const all = await get(
        `/api/data/?start_timestamp=${base}&end_timestamp=${base + 10 * HOUR}`,
        admin.headers,
      );
      expect(all.status).toBe(200);
      expect(all.body.success).toBe(true);
      const first = all.body.data.find(
        (r: { model_name: string; created_at: number }) =>
          r.model_name === 'gpt-4o-mini' && r.created_at === base,
      );
      expect(first).toMatchObject({ count: 3, quota: 159, token_used: 24, username: '' });

      const one = await get(
        `/api/data/?username=admin1&start_timestamp=${base}&end_timestamp=${base + 10 * HOUR}`,
        admin.headers,
      );
      expect(one.body.data).toEqual([
        expect.objectContaining({ username: 'admin1', model_name: 'gpt-4o-mini', count: 1, quota: 9 }),
      ]);

      const narrow = await get(
        `/api/data/?start_timestamp=${base + HOUR}&end_timestamp=${base + HOUR}`,
        admin.headers,
      );
      expect(narrow.body.data.map((r: { model_name: string }) => r.model_name)).toEqual(['gpt-4o']);
    });

    it("GET /api/data/self/ shows only the caller's rows and limits the span to a month", async () => {
      const own = await get(
        `/api/data/self/?start_timestamp=${base}&end_timestamp=${base + 10 * HOUR}`,
        alice.headers,
      );
      expect(own.status).toBe(200);
      expect(own.body.data.length).toBe(3);
      expect(own.body.data.every((r: { user_id: number }) => r.user_id === alice.id)).toBe(true);

      const tooLong = await get(
        `/api/data/self/?start_timestamp=${base - 40 * 24 * HOUR}&end_timestamp=${base}`,
        alice.headers,
      );
      expect(tooLong.status).toBe(400);
      expect(tooLong.body).toEqual({ success: false, message: 'the time span must not exceed one month' });
    });

    it('refuses non-admins, strangers and bad input', async () => {
      expect((await get('/api/data/', alice.headers)).status).toBe(403);
      expect((await get('/api/data/self/', {})).status).toBe(401);
      const bad = await get('/api/data/?start_timestamp=abc', admin.headers);
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);
      const reversed = await get(
        `/api/data/?start_timestamp=${base + HOUR}&end_timestamp=${base}`,
        admin.headers,
      );
      expect(reversed.status).toBe(400);
    });

    it('counts log rows written since the last export at once, and once after the next export', async () => {
      const range = `start_timestamp=${base}&end_timestamp=${base + 10 * HOUR}`;
      const live = (rows: Array<{ model_name: string; count: number; quota: number }>) =>
        rows
          .filter((r) => r.model_name === 'live-model')
          .reduce((a, r) => ({ count: a.count + r.count, quota: a.quota + r.quota }), { count: 0, quota: 0 });
      await server.ctx.logDb.db
        .insertInto('logs')
        .values([
          consumeLog(alice.id, 'alice', 'live-model', base + 2 * HOUR + 5, 700, [3, 4]),
          consumeLog(alice.id, 'alice', 'live-model', base + 2 * HOUR + 9, 300, [1, 1]),
          consumeLog(admin.id, 'admin1', 'live-model', base + 3 * HOUR, 50, [1, 1]),
        ])
        .execute();
      for (const round of ['before the export', 'after the export']) {
        const own = await get(`/api/data/self/?${range}`, alice.headers);
        expect(live(own.body.data), round).toEqual({ count: 2, quota: 1000 });
        const all = await get(`/api/data/?${range}`, admin.headers);
        expect(live(all.body.data), round).toEqual({ count: 3, quota: 1050 });
        const one = await get(`/api/data/?username=admin1&${range}`, admin.headers);
        expect(live(one.body.data), round).toEqual({ count: 1, quota: 50 });
        await exportQuotaData(server.ctx);
      }
    });
  });
}

describe('dashboard data with the usage log in its own database (LOG_SQL_DSN)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-logdb-'));
    server = await startServer({ env: { LOG_SQL_DSN: `local:${join(dir, 'logs.db')}` } });
  });
  afterAll(() => server?.close());

  it('reads the log database and writes the buckets to the main one, idempotently', async () => {
    expect(server.ctx.logDb).not.toBe(server.ctx.db);
    const { id } = await seedUser(server.ctx, { quota: 0, username: 'carol' });
    const hour = Math.floor(Date.now() / 1000 / HOUR) * HOUR - HOUR;
    await server.ctx.logDb.db
      .insertInto('logs')
      .values([
        consumeLog(id, 'carol', 'gpt-4o', hour + 5, 40, [4, 4]),
        consumeLog(id, 'carol', 'gpt-4o', hour + 50, 60, [6, 6]),
      ])
      .execute();
    await exportQuotaData(server.ctx);
    await exportQuotaData(server.ctx);
    const rows = await server.ctx.db.db.selectFrom('quota_data').selectAll().execute();
    expect(
      rows.map((r) => [
        Number(r.user_id),
        r.model_name,
        Number(r.created_at),
        Number(r.count),
        Number(r.quota),
        Number(r.token_used),
      ]),
    ).toEqual([[id, 'gpt-4o', hour, 2, 100, 20]]);
  });
});
