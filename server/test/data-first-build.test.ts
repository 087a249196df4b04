import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../src/db/schema.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { readHourlyMark } from '../src/modules/data/mark.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

const HOUR = 3600;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-haiku'];
const USERS = 8;
const hourOf = (t: number) => t - (t % HOUR);
type Row = Insertable<LogsTable>;
const n = Number;
/** What a quota_data and a log_hourly bucket sum, from each log row. */
const USER_SUMS = {
  count: () => 1,
  quota: (r: Row) => n(r.quota),
  token_used: (r: Row) => n(r.prompt_tokens) + n(r.completion_tokens),
};
const MODEL_SUMS = {
  count: () => 1,
  quota: (r: Row) => n(r.quota),
  cost: (r: Row) => n(r.cost),
  prompt_tokens: (r: Row) => n(r.prompt_tokens),
  completion_tokens: (r: Row) => n(r.completion_tokens),
};

/** The log's consumption rows summed per `key`, each field of `fields` from a row's values. */
function sums(rows: Row[], key: (r: Row) => string, fields: Record<string, (r: Row) => number>) {
  const out = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const k = key(r);
    const b = out.get(k) ?? Object.fromEntries(Object.keys(fields).map((f) => [f, 0]));
    for (const [f, of] of Object.entries(fields)) b[f] += of(r);
    out.set(k, b);
  }
  return out;
}

/** Buckets read back from their table, keyed as `sums` keys them, with `fields` as numbers. */
function readBack<B>(buckets: B[], key: (b: B) => string, fields: Record<string, unknown>) {
  return new Map(
    buckets.map((b) => [
      key(b),
      Object.fromEntries(Object.keys(fields).map((f) => [f, Number(b[f as keyof B])])),
    ]),
  );
}

/**
 * The first export (no mark yet) writes each hour's buckets (quota_data and log_hourly) as soon as the hour has
 * been read, in commits of 5,000: over a log of thousands of buckets cut by many slice edges, what it writes must
 * still be exactly the log summed per bucket, each bucket once, and the mark comes with the last of them.
 */
for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`the first dashboard export on ${engine.name}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ db: engine });
    });
    afterAll(async () => {
      await server?.close();
    });

    it('writes every bucket of a long log once, with the sums of its rows, then the mark', async () => {
      const now = Math.floor(Date.now() / 1000);
      const hours = 600;
      const start = hourOf(now) - hours * HOUR;
      const rows: Row[] = [];
      // Three rows per user (and channel), model and hour, a fifth of them left empty: over two commits' worth.
      for (let h = 0; h < hours; h++)
        for (let u = 1; u <= USERS; u++)
          MODELS.forEach((model, m) => {
            const n = (h + u + m) % 5 === 0 ? 0 : 3;
            for (let i = 0; i < n; i++)
              rows.push(
                consumeLogRow({
                  user_id: u,
                  username: `user${u}`,
                  model_name: model,
                  channel_id: u,
                  created_at: start + h * HOUR + ((i * 1297 + u * 61 + m * 7) % HOUR),
                  quota: 10 * u + m + i,
                  cost: u + i,
                  prompt_tokens: 3 * i + u,
                  completion_tokens: m + 1,
                }),
              );
          });
      for (let i = 0; i < rows.length; i += 500)
        await server.ctx.logDb.db
          .insertInto('logs')
          .values(rows.slice(i, i + 500))
          .execute();
      const perUser = sums(rows, (r) => `${r.user_id}/${r.model_name}/${hourOf(r.created_at)}`, USER_SUMS);
      const perModel = sums(
        rows,
        (r) => `${r.model_name}/${r.channel_id}/${hourOf(r.created_at)}`,
        MODEL_SUMS,
      );
      expect(perUser.size).toBeGreaterThan(10_000);
      expect(perModel.size).toBeGreaterThan(10_000);

      const r = await exportQuotaData(server.ctx, now);
      expect(r).toMatchObject({ buckets: perUser.size, hourly: perModel.size });
      const quotaData = await server.ctx.db.db.selectFrom('quota_data').selectAll().execute();
      expect(quotaData.length).toBe(perUser.size);
      expect(readBack(quotaData, (b) => `${b.user_id}/${b.model_name}/${b.created_at}`, USER_SUMS)).toEqual(
        perUser,
      );
      const hourly = await server.ctx.logDb.db.selectFrom('log_hourly').selectAll().execute();
      expect(hourly.length).toBe(perModel.size);
      expect(readBack(hourly, (b) => `${b.model_name}/${b.channel_id}/${b.created_at}`, MODEL_SUMS)).toEqual(
        perModel,
      );
      expect(await readHourlyMark(server.ctx.logDb.db)).toMatchObject({ lastId: rows.length, ranAt: now });
    });
  });
}
