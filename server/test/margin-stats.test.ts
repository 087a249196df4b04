import { Role } from '@modelgate/shared';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../src/db/schema.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';
import { rng } from './support/hourly-logs.ts';
import { seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * GET /api/log/margin: revenue (quota), upstream cost and margin by day, channel and model equal the sums of the
 * log rows themselves, whether the hourly buckets answer (time, model and channel filters) or the log does
 * (user, token and group filters), partial hours and rows written after the last export included; admins only.
 */
const HOUR = 3600;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-haiku'];
const USERS = ['ana', 'bo', 'cy'];

type Row = Insertable<LogsTable>;

function randomRows(rand: () => number, n: number, from: number, to: number, channels: number[]): Row[] {
  return Array.from({ length: n }, () => {
    const u = Math.floor(rand() * USERS.length);
    const consume = rand() < 0.85;
    const quota = consume ? Math.floor(rand() * 9000) : 0;
    return consumeLogRow({
      user_id: u + 1,
      username: USERS[u],
      token_name: `t-${USERS[u]}`,
      created_at: from + Math.floor(rand() * (to - from)),
      type: consume ? 2 : 5,
      model_name: MODELS[Math.floor(rand() * MODELS.length)],
      quota,
      // Cost below, at or above the charge (a loss is a margin too).
      cost: consume ? Math.floor(quota * (0.3 + rand())) : 0,
      channel_id: channels[Math.floor(rand() * channels.length)],
      group: rand() < 0.3 ? 'vip' : 'default',
    });
  });
}

interface Filter {
  start_timestamp?: number;
  end_timestamp?: number;
  model_name?: string;
  channel?: number;
  username?: string;
  group?: string;
}

interface Sums {
  count: number;
  revenue: number;
  cost: number;
  uncosted: number;
  margin: number;
}

const day = (tz: string) => {
  const fmt = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  return (t: number) => fmt.format(t * 1000);
};

/** The report summed here from the rows: each row counted in the day of its hour's first second. */
function expected(rows: Row[], f: Filter, tz: string, costSince: number) {
  const dayOf = day(tz);
  const zero = (): Sums => ({ count: 0, revenue: 0, cost: 0, uncosted: 0, margin: 0 });
  const total = zero();
  const days = new Map<string, Sums>();
  const channels = new Map<number, Sums>();
  const models = new Map<string, Sums>();
  const add = (s: Sums, r: Row, uncosted: boolean) => {
    s.count += 1;
    s.revenue += Number(r.quota);
    s.cost += Number(r.cost);
    if (uncosted) s.uncosted += Number(r.quota);
    s.margin = s.revenue - s.uncosted - s.cost;
  };
  const at = <K>(m: Map<K, Sums>, k: K) => m.get(k) ?? m.set(k, zero()).get(k)!;
  for (const r of rows) {
    if (r.type !== 2) continue;
    if (f.start_timestamp && r.created_at < f.start_timestamp) continue;
    if (f.end_timestamp && r.created_at > f.end_timestamp) continue;
    if (f.model_name && r.model_name !== f.model_name) continue;
    if (f.channel && r.channel_id !== f.channel) continue;
    if (f.username && r.username !== f.username) continue;
    if (f.group && r.group !== f.group) continue;
    const hour = r.created_at - (r.created_at % HOUR);
    const uncosted = hour + HOUR <= costSince;
    add(total, r, uncosted);
    add(at(days, dayOf(hour)), r, uncosted);
    add(at(channels, Number(r.channel_id)), r, uncosted);
    add(at(models, String(r.model_name)), r, uncosted);
  }
  const sorted = <K>(m: Map<K, Sums>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    total,
    days: sorted(days).map(([d, s]) => ({ day: d, ...s })),
    channels: sorted(channels).map(([id, s]) => ({ channel_id: id, ...s })),
    models: sorted(models).map(([name, s]) => ({ model_name: name, ...s })),
  };
}

const pick = (s: Sums) => ({
  count: s.count,
  revenue: s.revenue,
  cost: s.cost,
  uncosted: s.uncosted,
  margin: s.margin,
});

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`margin by day, channel and model on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient;
    let user: ConsoleClient;
    let channels: number[];
    const rows: Row[] = [];
    const rand = rng(20250301);
    const now = Math.floor(Date.now() / 1000);
    const from = now - 4 * 86_400 - 777;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await loginAs(server, { username: 'margin-admin', role: Role.Admin });
      user = await loginAs(server, { username: 'margin-user' });
      channels = [];
      for (const name of ['reseller', 'cloud', 'direct'])
        channels.push(
          (
            await seedChannel(server.ctx, {
              baseUrl: 'http://127.0.0.1:9',
              key: `sk-${name}`,
              models: MODELS,
              name,
            })
          ).id,
        );
      // Rows in these tests are older than the server: costs count from before them.
      await setCostSince(0);
    }, 60_000);
    afterAll(() => server?.close());

    const setCostSince = (t: number) =>
      server.ctx.logDb.db
        .updateTable('import_marks')
        .set({ updated_at: t })
        .where('source', '=', 'log-cost')
        .execute();
    const add = async (more: Row[]) => {
      for (let i = 0; i < more.length; i += 400)
        await server.ctx.logDb.db
          .insertInto('logs')
          .values(more.slice(i, i + 400))
          .execute();
      rows.push(...more);
    };
    const margin = async (f: Filter & { tz?: string }) => {
      const q = new URLSearchParams(Object.entries(f).map(([k, v]): [string, string] => [k, String(v)]));
      const r = await admin.get(`/api/log/margin?${q}`);
      expect(r.success, r.message).toBe(true);
      return r.data;
    };
    const check = async (f: Filter, tz: string, costSince = 0) => {
      const got = await margin({ ...f, tz });
      const want = expected(rows, f, tz, costSince);
      const label = JSON.stringify(f);
      expect(pick(got), label).toEqual(want.total);
      expect(got.tz).toBe(tz);
      expect(
        got.days.map((d: Sums & { day: string }) => ({ day: d.day, ...pick(d) })),
        label,
      ).toEqual(want.days);
      const byId = [...got.channels].sort((a, b) => a.channel_id - b.channel_id);
      expect(
        byId.map((c: Sums & { channel_id: number }) => ({ channel_id: c.channel_id, ...pick(c) })),
        label,
      ).toEqual(want.channels);
      const byName = [...got.models].sort((a, b) => (a.model_name < b.model_name ? -1 : 1));
      expect(
        byName.map((m: Sums & { model_name: string }) => ({ model_name: m.model_name, ...pick(m) })),
        label,
      ).toEqual(want.models);
      // Largest revenue first, as the console lists them.
      for (let i = 1; i < got.channels.length; i++)
        expect(got.channels[i - 1].revenue).toBeGreaterThanOrEqual(got.channels[i].revenue);
      return got;
    };
    const randomFilter = (): Filter => {
      const at = () => {
        const t = from + Math.floor(rand() * (now - from));
        const k = rand();
        return k < 0.3 ? t - (t % HOUR) : k < 0.45 ? t - (t % HOUR) - 1 : t;
      };
      let start = rand() < 0.15 ? 0 : at();
      let end = rand() < 0.15 ? 0 : at();
      if (start && end && start > end) [start, end] = [end, start];
      const f: Filter = {};
      if (start) f.start_timestamp = start;
      if (end) f.end_timestamp = end;
      if (rand() < 0.3) f.model_name = MODELS[Math.floor(rand() * MODELS.length)];
      if (rand() < 0.3) f.channel = channels[Math.floor(rand() * channels.length)];
      if (rand() < 0.15) f.username = USERS[Math.floor(rand() * USERS.length)];
      else if (rand() < 0.1) f.group = 'vip';
      return f;
    };

    it('refuses users who are not admins with the 403 envelope, and a bad time zone with a 400', async () => {
      const r = await user.get('/api/log/margin');
      expect(r.status).toBe(403);
      expect(r.success).toBe(false);
      expect(r.message).toBeTruthy();
      const anon = await fetch(`${server.url}/api/log/margin`);
      expect(anon.status).toBe(401);
      const bad = await admin.get('/api/log/margin?tz=Mars/Olympus');
      expect(bad.status).toBe(400);
      expect(bad.message).toContain('unknown time zone');
      const backwards = await admin.get(`/api/log/margin?start_timestamp=${now}&end_timestamp=${now - 10}`);
      expect(backwards.status).toBe(400);
    });

    it('an empty log gives zeros', async () => {
      const got = await margin({ tz: 'UTC' });
      expect(pick(got)).toEqual({ count: 0, revenue: 0, cost: 0, uncosted: 0, margin: 0 });
      expect(got.days).toEqual([]);
    });

    it('before the first export the log answers, equal to the rows', async () => {
      await add(randomRows(rand, 1500, from, now, channels));
      await check({}, 'UTC');
      for (let i = 0; i < 15; i++) await check(randomFilter(), 'Asia/Shanghai');
    });

    it('after an export the buckets answer, equal to the rows, with channel names', async () => {
      await exportQuotaData(server.ctx);
      const got = await check({}, 'America/New_York');
      expect(got.channels.map((c: { channel_name: string }) => c.channel_name).sort()).toEqual([
        'cloud',
        'direct',
        'reseller',
      ]);
      for (let i = 0; i < 40; i++) await check(randomFilter(), i % 2 ? 'UTC' : 'Asia/Kolkata');
      // Served from the buckets: a bucket changed behind the log's back shows (and is put back).
      const hour = now - (now % HOUR) - 5 * HOUR;
      const nudge = (by: number) =>
        server.ctx.logDb.db
          .updateTable('log_hourly')
          .set((eb) => ({ cost: eb('cost', '+', by) }))
          .where('created_at', '=', hour)
          .execute();
      const before = await margin({ start_timestamp: hour, end_timestamp: hour + HOUR - 1, tz: 'UTC' });
      expect(before.count).toBeGreaterThan(0);
      const nudged = await nudge(1000);
      const after = await margin({ start_timestamp: hour, end_timestamp: hour + HOUR - 1, tz: 'UTC' });
      await nudge(-1000);
      expect(Number(nudged[0].numUpdatedRows)).toBeGreaterThan(0);
      expect(after.cost - before.cost).toBe(1000 * Number(nudged[0].numUpdatedRows));
    });

    it('counts rows written after the export, also late ones of exported hours', async () => {
      await add(randomRows(rand, 300, now - 3 * HOUR, now, channels));
      await add(randomRows(rand, 100, from, now - 2 * 86_400, channels));
      await check({}, 'UTC');
      for (let i = 0; i < 25; i++) await check(randomFilter(), 'Europe/Berlin');
      await exportQuotaData(server.ctx);
      for (let i = 0; i < 10; i++) await check(randomFilter(), 'UTC');
    });

    it('leaves requests logged before costs were recorded out of the margin, and says how much', async () => {
      const since = now - 2 * 86_400 + 1800;
      await setCostSince(since);
      const got = await check({}, 'UTC', since);
      expect(got.cost_since).toBe(since);
      expect(got.uncosted).toBeGreaterThan(0);
      expect(got.margin).toBe(got.revenue - got.uncosted - got.cost);
      for (let i = 0; i < 10; i++) await check(randomFilter(), 'UTC', since);
      await setCostSince(0);
    });
  });
}
