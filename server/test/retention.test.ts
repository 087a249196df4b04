import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { retentionCutoff, runRetention } from '../src/modules/retention/job.ts';
import type { PurgePace } from '../src/modules/retention/purge.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const DAY = 86_400;
const MODEL = 'gpt-4.1-nano-2025-04-14';
const OLD_ROWS = 2_000;
const KEPT_ROWS = 300;
// Small batches and short rests, so the purge runs for 10 to 20 batches while the relay keeps logging.
const PACE: PurgePace = {
  firstBatch: 200,
  minBatch: 100,
  maxBatch: 200,
  budgetMs: 20,
  restFactor: 1,
  minRestMs: 5,
};

const logRow = (userId: number, createdAt: number, i: number) => ({
  user_id: userId,
  created_at: createdAt,
  type: 2,
  content: '',
  username: 'history',
  token_name: 'old',
  token_id: 0,
  model_name: i % 2 ? 'gpt-4o-mini' : 'claude-3-haiku',
  quota: 100 + (i % 7),
  prompt_tokens: 10,
  completion_tokens: 5,
  use_time: 1,
  first_time: 0,
  is_stream: 0,
  channel_id: 0,
  group: 'default',
  ip: '',
  request_id: `old-${i}`,
  other: '',
});

const count = async (server: TestServer, where: (q: any) => any, table = 'logs') => {
  const db = table === 'logs' ? server.ctx.logDb.db : server.ctx.db.db;
  const row = await where(
    db.selectFrom(table as 'logs').select((eb: any) => eb.fn.countAll().as('n')),
  ).executeTakeFirstOrThrow();
  return Number(row.n);
};

describe.each(DATABASES)('retention on $name', (engine) => {
  let server: TestServer;
  let mock: MockUpstream;
  let root: ConsoleClient;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    if (!engine.available) return;
    mock = await startMockUpstream();
    // Flushes every 100 ms, so the log writer commits many times while the purge runs.
    server = await startServer({ db: engine, env: { BATCH_UPDATE_INTERVAL: '0.1' } });
    root = await loginAs(server, { username: 'root', role: Role.Root });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it.skipIf(!engine.available)('refuses retention values out of range and keeps the old ones', async () => {
    for (const value of ['-1', '3651', '1.5', 'ten', '']) {
      const r = await root.put('/api/option/', { key: 'LogRetentionDays', value });
      expect(r.success, value).toBe(false);
      expect(r.message).toMatch(/LogRetentionDays/);
    }
    const bad = await root.put('/api/option/', { key: 'TaskRetentionDays', value: '99999' });
    expect(bad.message).toContain('must be between 0 and 3650 days');
    expect(server.ctx.options.int('LogRetentionDays')).toBe(0);
    expect(server.ctx.options.int('TaskRetentionDays')).toBe(0);
    for (const key of ['LogRetentionDays', 'TaskRetentionDays']) {
      const r = await root.put('/api/option/', { key, value: '30' });
      expect(r.success, r.message).toBe(true);
      expect(server.ctx.options.int(key)).toBe(30);
    }
  });

  it.skipIf(!engine.available)(
    'deletes expired logs in batches while the relay logs requests: no new row lost, old days still chart',
    async () => {
      await root.put('/api/option/', { key: 'LogRetentionDays', value: '30' });
      const cutoff = retentionCutoff(now, 30);
      // History of another user: 2,000 rows 30 to 59 days old (to go) and some 29 days old (to stay).
      const history = (await seedUser(server.ctx, { quota: 0, username: 'history' })).id;
      const rows = [
        ...Array.from({ length: OLD_ROWS }, (_, i) =>
          logRow(history, cutoff - 1 - ((i * 127) % (29 * DAY)), i),
        ),
        ...Array.from({ length: KEPT_ROWS }, (_, i) => logRow(history, now - 29 * DAY + i, OLD_ROWS + i)),
      ];
      await server.ctx.logDb.db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += 500)
          await trx
            .insertInto('logs')
            .values(rows.slice(i, i + 500))
            .execute();
      });
      await exportQuotaData(server.ctx, now);
      const chart = async () =>
        server.ctx.db.db
          .selectFrom('quota_data')
          .select(['user_id', 'model_name', 'created_at', 'count', 'quota', 'token_used'])
          .where('user_id', '=', history)
          .orderBy('created_at')
          .orderBy('model_name')
          .execute();
      const chartBefore = await chart();
      expect(chartBefore.reduce((s, r) => s + Number(r.count), 0)).toBe(OLD_ROWS + KEPT_ROWS);

      const userId = (await seedUser(server.ctx, { quota: 1_000_000_000 })).id;
      const { apiKey } = await seedToken(server.ctx, { userId, remain: 1_000_000_000 });
      await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
      const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const newRows = () => count(server, (q) => q.where('user_id', '=', userId));

      // The relay under load for as long as the purge runs (bounded: 1,500 requests or 90 s).
      let purgeDone = false;
      let served = 0;
      let failed = 0;
      let servedDuringPurge = 0;
      let purgeStarted = false;
      const deadline = Date.now() + 90_000;
      const worker = async () => {
        while ((!purgeDone || served < 100) && served + failed < 1500 && Date.now() < deadline) {
          try {
            const stream = served % 2 === 1;
            if (stream) {
              const s = await client.chat.completions.create({
                model: MODEL,
                stream: true,
                messages: [{ role: 'user', content: 'Invent a new holiday.' }],
              });
              for await (const _ of s);
            } else
              await client.chat.completions.create({
                model: MODEL,
                messages: [{ role: 'user', content: 'hi' }],
              });
            served++;
            if (purgeStarted && !purgeDone) servedDuringPurge++;
          } catch {
            failed++;
          }
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, worker));
      while (served < 20) await new Promise((r) => setTimeout(r, 20));

      // A console page read while the purge runs answers every time.
      let pages = 0;
      const pageReads = (async () => {
        while (!purgeDone) {
          const r = await root.get('/api/log/?p=1&page_size=10');
          expect(r.success, r.message).toBe(true);
          pages++;
          await new Promise((r) => setTimeout(r, 50));
        }
      })();

      const rowsAtStart = await newRows();
      const pagesAtStart = pages;
      // After the first batch the purge waits until the writer has committed new rows and a page was read: it
      // must leave them the database between batches, however slow this machine is.
      let rests = 0;
      const rest = async (ms: number) => {
        await new Promise((r) => setTimeout(r, ms));
        if (rests++ > 0) return;
        const between = async () =>
          servedDuringPurge > 0 && pages > pagesAtStart && (await newRows()) > rowsAtStart;
        await expect.poll(between, { timeout: 60_000 }).toBe(true);
      };
      purgeStarted = true;
      const result = await runRetention(server.ctx, { nowSec: now, pace: PACE, rest });
      const rowsAtEnd = await newRows();
      purgeDone = true;
      await Promise.all([load, pageReads]);
      await flushLedger(server.ctx);

      expect(failed).toBe(0);
      expect(result.logs).toBe(OLD_ROWS);
      // The writer committed rows while the purge ran, and pages were served.
      expect(rests).toBeGreaterThanOrEqual(OLD_ROWS / PACE.maxBatch - 1);
      expect(servedDuringPurge).toBeGreaterThan(0);
      expect(rowsAtEnd).toBeGreaterThan(rowsAtStart);
      expect(pages).toBeGreaterThan(pagesAtStart);

      // Old rows are gone, the rows inside the window stay, and every request has its row.
      expect(await count(server, (q) => q.where('created_at', '<', cutoff))).toBe(0);
      expect(await count(server, (q) => q.where('user_id', '=', history))).toBe(KEPT_ROWS);
      expect(await newRows()).toBe(served);
      const used = await server.ctx.db.db
        .selectFrom('users')
        .select('used_quota')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const logged = await server.ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum<number>('quota').as('q'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      expect(Number(logged.q)).toBe(Number(used.used_quota));

      // The dashboard's buckets of the deleted days survive the next export, and the new requests are counted.
      await exportQuotaData(server.ctx);
      expect(await chart()).toEqual(chartBefore);
      const fresh = await server.ctx.db.db
        .selectFrom('quota_data')
        .select((eb) => eb.fn.sum<number>('count').as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      expect(Number(fresh.n)).toBe(served);
    },
    180_000,
  );

  it.skipIf(!engine.available)(
    'deletes finished tasks past the window and keeps unfinished ones',
    async () => {
      await root.put('/api/option/', { key: 'TaskRetentionDays', value: '30' });
      const old = now - 40 * DAY;
      const recent = now - 10 * DAY;
      const mj = (mjId: string, submit: number, finish: number, status: string) => ({
        mj_id: mjId,
        user_id: 1,
        action: 'IMAGINE',
        submit_time: submit * 1000,
        start_time: submit * 1000,
        finish_time: finish * 1000,
        status,
        progress: finish ? '100%' : '10%',
      });
      await server.ctx.db.db
        .insertInto('midjourneys')
        .values([
          mj('old-done', old, old + 60, 'SUCCESS'),
          mj('old-failed', old, old + 5, 'FAILURE'),
          mj('old-running', old, 0, 'IN_PROGRESS'),
          mj('recent-done', recent, recent + 60, 'SUCCESS'),
        ] as any)
        .execute();
      const task = (taskId: string, submit: number, finish: number, status: string) => ({
        task_id: taskId,
        platform: 'suno',
        user_id: 1,
        action: 'MUSIC',
        status,
        created_at: submit,
        updated_at: finish || submit,
        submit_time: submit,
        start_time: submit,
        finish_time: finish,
        progress: finish ? '100%' : '0%',
      });
      await server.ctx.db.db
        .insertInto('tasks')
        .values([
          task('t-old-done', old, old + 30, 'SUCCESS'),
          task('t-old-queued', old, 0, 'QUEUED'),
          task('t-recent-done', recent, recent + 30, 'FAILURE'),
        ] as any)
        .execute();

      const result = await runRetention(server.ctx, { nowSec: now, pace: PACE });
      expect(result.midjourneys).toBe(2);
      expect(result.tasks).toBe(1);
      const mjLeft = await server.ctx.db.db
        .selectFrom('midjourneys')
        .select('mj_id')
        .orderBy('mj_id')
        .execute();
      expect(mjLeft.map((r) => r.mj_id)).toEqual(['old-running', 'recent-done']);
      const tasksLeft = await server.ctx.db.db
        .selectFrom('tasks')
        .select('task_id')
        .orderBy('task_id')
        .execute();
      expect(tasksLeft.map((r) => r.task_id)).toEqual(['t-old-queued', 't-recent-done']);
    },
  );

  it.skipIf(!engine.available)('keeps everything when the days are 0', async () => {
    await root.put('/api/option/', { key: 'LogRetentionDays', value: '0' });
    await root.put('/api/option/', { key: 'TaskRetentionDays', value: '0' });
    await server.ctx.logDb.db
      .insertInto('logs')
      .values(logRow(1, now - 3000 * DAY, 0))
      .execute();
    const result = await runRetention(server.ctx, { nowSec: now, pace: PACE });
    expect(result).toEqual({ logs: 0, midjourneys: 0, tasks: 0, audit: 0 });
    expect(await count(server, (q) => q.where('created_at', '<', now - 2000 * DAY))).toBe(1);
  });
});
