import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { renewDueBudgets } from '../src/ledger/budget/reset-job.ts';
import { periodAt, ruleOf } from '../src/ledger/budget/rule.ts';
import { relayState } from '../src/relay/relay-state.ts';
import {
  ask,
  BUDGET_MODEL,
  BUDGET_PRICES,
  CALL_QUOTA,
  gatedUpstream,
  localText,
  setClock,
  until,
} from './support/budget-relay.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Periodic budgets through the real relay on each database engine: a per-call price (1000 quota) makes every
 * hold equal to its charge, so the number of requests a budget admits is exact.
 */
for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`budgets on ${engine.name}`, () => {
    let server: TestServer;
    let mock: MockUpstream;
    let admin: ConsoleClient;
    let n = 0;

    beforeAll(async () => {
      mock = await startMockUpstream();
      server = await startServer({ db: engine, env: { BATCH_UPDATE_INTERVAL: '0.2' } });
      await server.ctx.options.set('ModelPrice', JSON.stringify(BUDGET_PRICES));
      await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [BUDGET_MODEL] });
      await relayState(server.ctx).channels.reload();
      admin = await loginAs(server, { username: `admin${engine.name}`, role: Role.Admin });
    });
    afterAll(async () => {
      await server?.close();
      await mock?.close();
    });

    /** A user with plenty of quota, logged in, and one token of theirs made through the console API. */
    async function owner(token: Record<string, unknown>) {
      const client = await loginAs(server, { username: `u${engine.name}${++n}`, quota: 100_000_000 });
      const r = await client.post('/api/token/', { name: 'budgeted', unlimited_quota: true, ...token });
      expect(r.success, r.message).toBe(true);
      return { client, token: r.data[0] as { id: number; key: string }, apiKey: `sk-${r.data[0].key}` };
    }

    const tokenRow = (id: number) =>
      server.ctx.db.db
        .selectFrom('tokens')
        .select(['used_quota', 'budget_used', 'budget_reset_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    /** Rows of any test whose stored period has ended by `ms`: what a renewal pass at `ms` must renew. */
    const due = async (ms: number) =>
      Number(
        (
          await server.ctx.db.db
            .selectFrom('tokens')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('budget_reset_at', '>', 0)
            .where('budget_reset_at', '<=', Math.floor(ms / 1000))
            .executeTakeFirstOrThrow()
        ).n,
      ) +
      Number(
        (
          await server.ctx.db.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('budget_reset_at', '>', 0)
            .where('budget_reset_at', '<=', Math.floor(ms / 1000))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const loggedQuota = async (tokenId: number) => {
      const rows = await server.ctx.logDb.db
        .selectFrom('logs')
        .select('quota')
        .where('token_id', '=', tokenId)
        .execute();
      return { rows: rows.length, sum: rows.reduce((s, r) => s + Number(r.quota), 0) };
    };

    it('300 concurrent requests on a daily budget never overspend it', async () => {
      const { client, token, apiKey } = await owner({
        budget_quota: 37_500,
        budget_period: 'daily',
        budget_reset_time: '00:00',
      });
      const openai = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const sentAt = Date.now() / 1000;
      const outcomes = await Promise.all(
        Array.from({ length: 300 }, () =>
          openai.chat.completions
            .create({ model: BUDGET_MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
            .then(() => 'ok' as const)
            .catch((err: unknown) => err),
        ),
      );
      const ok = outcomes.filter((o) => o === 'ok').length;
      const refused = outcomes.filter((o) => o instanceof OpenAI.RateLimitError) as InstanceType<
        typeof OpenAI.RateLimitError
      >[];
      // 37 500 / 1000 a call: exactly 37 fit, the 263 others are refused with the renewal time.
      expect(ok).toBe(37);
      expect(refused).toHaveLength(263);
      const first = refused[0];
      expect(first.status).toBe(429);
      expect(first.code).toBe('budget_exceeded');
      expect(first.message).toMatch(
        /daily budget .* is used up; it renews at \d{4}-\d\d-\d\d 00:00 \(UTC[+-]\d\d:\d\d\)/,
      );
      const renews = relayState(server.ctx).tokens.get(token.key) as { balance: { budget: { end: number } } };
      const wait = Number(first.headers.get('retry-after'));
      // Said between the first request and now (however long a busy machine took to answer all 300).
      const end = renews.balance.budget.end;
      expect(wait).toBeGreaterThanOrEqual(Math.floor(end - Date.now() / 1000));
      expect(wait).toBeLessThanOrEqual(Math.ceil(end - sentAt) + 1);
      expect(first.headers.get('x-should-retry')).toBe(wait > 60 ? 'false' : null);

      await flushLedger(server.ctx);
      const row = await tokenRow(token.id);
      const logs = await loggedQuota(token.id);
      expect(logs).toEqual({ rows: 37, sum: 37 * CALL_QUOTA });
      expect(Number(row.budget_used)).toBe(37 * CALL_QUOTA);
      expect(Number(row.used_quota)).toBe(37 * CALL_QUOTA);
      const listed = (await client.get('/api/token/?p=0&size=10')).data[0];
      expect(listed).toMatchObject({
        budget_quota: 37_500,
        budget_period: 'daily',
        budget_used: 37_000,
        budget_renews_at: renews.balance.budget.end,
      });
    });

    it("a user's budget (set by an administrator) applies across all of their tokens", async () => {
      const { client } = await owner({});
      const me = (await client.get('/api/user/self')).data;
      const set = await admin.put('/api/user/', {
        id: me.id,
        budget_quota: 20_500,
        budget_period: 'weekly',
        budget_reset_time: '2025-01-06 08:00',
      });
      expect(set.success, set.message).toBe(true);
      const keys: string[] = [];
      for (const name of ['a', 'b', 'c']) {
        const r = await client.post('/api/token/', { name, unlimited_quota: true });
        keys.push(`sk-${r.data[0].key}`);
      }
      const statuses = await Promise.all(
        Array.from({ length: 60 }, (_, i) => ask(server.url, keys[i % 3]).then((r) => r.status)),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
      const refusal = await ask(server.url, keys[0]);
      expect(refusal.body.error.message).toMatch(/your account's weekly budget/);
      await flushLedger(server.ctx);
      const self = (await client.get('/api/user/self')).data;
      expect(self).toMatchObject({ budget_quota: 20_500, budget_period: 'weekly', budget_used: 20_000 });
      expect(new Date(self.budget_renews_at * 1000).getDay()).toBe(1); // a Monday, 08:00
      expect(new Date(self.budget_renews_at * 1000).getHours()).toBe(8);
    });

    it('a reset while requests are in flight neither loses nor double-counts, and two instances renew once', async () => {
      const gated = await gatedUpstream();
      await seedChannel(server.ctx, {
        baseUrl: gated.url,
        key: 'sk-gated',
        models: ['deepseek-gated'],
      });
      await server.ctx.options.set(
        'ModelPrice',
        JSON.stringify({ ...BUDGET_PRICES, 'deepseek-gated': 0.002 }),
      );
      await relayState(server.ctx).channels.reload();
      const t0 = Date.now();
      const { token, apiKey } = await owner({
        budget_quota: 5 * CALL_QUOTA,
        budget_period: 'daily',
        budget_reset_time: localText(t0 + 3_600_000),
      });
      const before = await tokenRow(token.id);
      const e1 = Number(before.budget_reset_at);
      expect(e1 * 1000).toBeGreaterThan(t0);
      const t1 = e1 * 1000 + 1000;
      // A second gateway on the same database: it races the first one's renewal job.
      const other = await createContext(
        loadConfig({
          SQL_DSN: server.ctx.config.sqlDsn,
          SQLITE_PATH: server.ctx.config.sqlitePath,
          NODE_TYPE: 'slave',
          LOG_LEVEL: 'silent',
        }),
        pino({ level: 'silent' }),
      );
      try {
        setClock(server.ctx, t0);
        gated.shut();
        const oldPeriod = Array.from({ length: 5 }, () => ask(server.url, apiKey, 'deepseek-gated'));
        await until(() => gated.waiting === 5);
        // The five holds in flight fill the period.
        expect((await ask(server.url, apiKey, 'deepseek-gated')).status).toBe(429);

        setClock(server.ctx, t1);
        const newPeriod = Array.from({ length: 5 }, () => ask(server.url, apiKey, 'deepseek-gated'));
        await until(() => gated.waiting === 10);
        expect((await ask(server.url, apiKey, 'deepseek-gated')).status).toBe(429);

        // The old period's requests finish after the renewal: they stay in the old period.
        gated.release(5);
        expect((await Promise.all(oldPeriod)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        await flushLedger(server.ctx);
        expect(await tokenRow(token.id)).toMatchObject({ budget_used: 5000, budget_reset_at: e1 });

        const dueRows = await due(t1);
        expect(dueRows).toBeGreaterThanOrEqual(1);
        const renewed = await Promise.all([renewDueBudgets(server.ctx, t1), renewDueBudgets(other, t1)]);
        expect(renewed[0] + renewed[1]).toBe(dueRows);
        const stored = await server.ctx.db.db
          .selectFrom('tokens')
          .selectAll()
          .where('id', '=', token.id)
          .executeTakeFirstOrThrow();
        const e2 = periodAt(ruleOf(stored)!, t1).end;
        expect(e2).toBeGreaterThan(e1);
        expect(await tokenRow(token.id)).toMatchObject({ budget_used: 0, budget_reset_at: e2 });

        gated.open();
        expect((await Promise.all(newPeriod)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        await flushLedger(server.ctx);
        const row = await tokenRow(token.id);
        expect(Number(row.budget_used)).toBe(5 * CALL_QUOTA);
        expect(Number(row.budget_reset_at)).toBe(e2);
        expect(Number(row.used_quota)).toBe(10 * CALL_QUOTA);
        expect(await loggedQuota(token.id)).toEqual({ rows: 10, sum: 10 * CALL_QUOTA });
        const budget = (relayState(server.ctx).tokens.get(token.key) as any).balance.budget;
        expect([budget.used, budget.pending, budget.held]).toEqual([5000, 0, 0]);
        expect((await ask(server.url, apiKey, 'deepseek-gated')).status).toBe(429);
      } finally {
        gated.open();
        setClock(server.ctx, Date.now());
        await other.close();
        await gated.close();
      }
    });

    it('a clock moved past the reset renews the budget exactly once, however many instances renew it', async () => {
      const t0 = Date.now();
      const { token, apiKey } = await owner({
        budget_quota: 5 * CALL_QUOTA,
        budget_period: 'custom',
        budget_period_days: 2,
        budget_reset_time: localText(t0 + 3_600_000),
      });
      const e1 = Number((await tokenRow(token.id)).budget_reset_at);
      const others = await Promise.all(
        [1, 2].map(() =>
          createContext(
            loadConfig({
              SQL_DSN: server.ctx.config.sqlDsn,
              SQLITE_PATH: server.ctx.config.sqlitePath,
              NODE_TYPE: 'slave',
              LOG_LEVEL: 'silent',
            }),
            pino({ level: 'silent' }),
          ),
        ),
      );
      try {
        setClock(server.ctx, t0);
        const spend = async (k: number) => {
          const s = await Promise.all(Array.from({ length: k }, () => ask(server.url, apiKey)));
          return s.map((r) => r.status).sort();
        };
        expect(await spend(6)).toEqual([200, 200, 200, 200, 200, 429]);
        await flushLedger(server.ctx);

        const t1 = e1 * 1000 + 5000;
        setClock(server.ctx, t1);
        // The first request of the new period renews the row itself (the writer's compare-and-set) ...
        expect(await spend(3)).toEqual([200, 200, 200]);
        await flushLedger(server.ctx);
        const renewedByWriter = await tokenRow(token.id);
        expect(Number(renewedByWriter.budget_used)).toBe(3000);
        expect(Number(renewedByWriter.budget_reset_at)).toBeGreaterThan(e1);
        // ... so three instances running the renewal job at once leave it alone.
        const dueAtT1 = await due(t1);
        const counts = await Promise.all([server.ctx, ...others].map((c) => renewDueBudgets(c, t1)));
        expect(counts.reduce((a, b) => a + b, 0)).toBe(dueAtT1);
        expect(await tokenRow(token.id)).toMatchObject({ budget_used: 3000 });
        expect(await spend(3)).toEqual([200, 200, 429]);
        await flushLedger(server.ctx);
        expect(Number((await tokenRow(token.id)).budget_used)).toBe(5000);

        // Two days on, nobody has spent anything: exactly one of the racing instances renews the row.
        const t2 = Number(renewedByWriter.budget_reset_at) * 1000 + 1000;
        const dueAtT2 = await due(t2);
        const raced = await Promise.all([server.ctx, ...others].map((c) => renewDueBudgets(c, t2)));
        expect(raced.reduce((a, b) => a + b, 0)).toBe(dueAtT2);
        expect(await due(t2)).toBe(0);
        const row = await tokenRow(token.id);
        expect(Number(row.budget_used)).toBe(0);
        expect(Number(row.budget_reset_at)).toBeGreaterThan(Number(renewedByWriter.budget_reset_at));
        setClock(server.ctx, t2);
        expect(await spend(6)).toEqual([200, 200, 200, 200, 200, 429]);
        await flushLedger(server.ctx);
        expect(await loggedQuota(token.id)).toEqual({ rows: 15, sum: 15 * CALL_QUOTA });
      } finally {
        setClock(server.ctx, Date.now());
        for (const c of others) await c.close();
      }
    });
  });
}
