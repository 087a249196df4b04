import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { DATABASES } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Exact billing on every engine: hundreds of concurrent requests against a small balance never overdraw it,
 * and afterwards the usage log, the user's used quota and the token's used quota all agree to the unit.
 * deepseek-chat replays a recording with 13 prompt + 300 completion tokens:
 * (13 + 300 x 4) x 0.135 = 163.755 -> 164 quota per request.
 */
const PER_REQUEST = 164;

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`relay billing on ${engine.name}`, () => {
    let server: TestServer;
    let mock: MockUpstream;

    beforeAll(async () => {
      mock = await startMockUpstream();
      server = await startServer({ db: engine, env: { BATCH_UPDATE_INTERVAL: '0.2' } });
      await seedChannel(server.ctx, {
        baseUrl: mock.url,
        key: 'sk-good',
        models: ['deepseek-chat'],
        group: 'default,vip',
      });
    });
    afterAll(async () => {
      await server?.close();
      await mock?.close();
    });

    const send = (apiKey: string) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'deepseek-chat',
          max_tokens: 400,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { type: string } } }));

    async function totals(userId: number, tokenId: number) {
      await flushLedger(server.ctx);
      const { db } = server.ctx.db;
      const user = await db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const token = await db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', tokenId)
        .executeTakeFirstOrThrow();
      const logs = await server.ctx.logDb.db
        .selectFrom('logs')
        .select(['quota'])
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .execute();
      return { user, token, logs, logSum: logs.reduce((s, l) => s + Number(l.quota), 0) };
    }

    it('300 concurrent requests on a small user balance: no overdraft, logs = used quota', async () => {
      const START = PER_REQUEST * 40 + 100;
      const user = await seedUser(server.ctx, { quota: START });
      const token = await seedToken(server.ctx, { userId: user.id, unlimited: true, remain: 0 });
      const results = await Promise.all(Array.from({ length: 300 }, () => send(token.apiKey)));
      const ok = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 403);
      expect(ok + refused.length).toBe(300);
      expect(refused.every((r) => r.body.error?.type === 'insufficient_quota')).toBe(true);
      expect(ok).toBeGreaterThan(0);
      const t = await totals(user.id, token.id);
      expect(t.logs).toHaveLength(ok);
      expect(t.logSum).toBe(ok * PER_REQUEST);
      expect(t.user.used_quota).toBe(t.logSum);
      expect(t.token.used_quota).toBe(t.logSum);
      expect(t.user.quota).toBe(START - t.logSum);
      expect(t.user.quota).toBeGreaterThanOrEqual(0);
      expect(t.user.request_count).toBe(ok);
      expect(relayState(server.ctx).users.peekBalance(user.id)?.available).toBe(t.user.quota);
      // The console's user snapshot follows the flushes without rereading the database.
      expect(server.ctx.users.peek(user.id)).toMatchObject({
        quota: t.user.quota,
        used_quota: t.logSum,
        request_count: ok,
      });
    });

    it('300 concurrent requests on a small token quota: the token is never overdrawn', async () => {
      const user = await seedUser(server.ctx, { quota: 10_000_000 });
      const TOKEN = PER_REQUEST * 25 + 50;
      const token = await seedToken(server.ctx, { userId: user.id, remain: TOKEN });
      const results = await Promise.all(Array.from({ length: 300 }, () => send(token.apiKey)));
      const ok = results.filter((r) => r.status === 200).length;
      expect(results.every((r) => r.status === 200 || r.status === 403)).toBe(true);
      const t = await totals(user.id, token.id);
      expect(t.logSum).toBe(ok * PER_REQUEST);
      expect(t.token.used_quota).toBe(t.logSum);
      expect(t.token.remain_quota).toBe(TOKEN - t.logSum);
      expect(t.token.remain_quota).toBeGreaterThanOrEqual(0);
      expect(t.user.used_quota).toBe(t.logSum);
      expect(t.user.quota).toBe(10_000_000 - t.logSum);
    });

    it('applies the group ratio, and keeps pending charges across a console credit', async () => {
      await server.ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1.5 }));
      const user = await seedUser(server.ctx, { quota: 100_000, group: 'vip' });
      const token = await seedToken(server.ctx, { userId: user.id, remain: 100_000 });
      const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      await flushLedger(server.ctx);
      const writer = relayState(server.ctx).writer;
      await client.chat.completions.create({
        model: 'deepseek-chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      // The charge is pending (not flushed yet) when the console credits 5000 and announces it.
      expect(writer.queued).toBeGreaterThan(0);
      await server.ctx.db.db
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '+', 5000) }))
        .where('id', '=', user.id)
        .execute();
      server.ctx.bus.publish(`user:${user.id}`);
      await new Promise((r) => setTimeout(r, 50));
      const t = await totals(user.id, token.id);
      // (13 + 300 x 4) x 0.135 x 1.5 = 245.6325 -> 246
      expect(t.logSum).toBe(246);
      expect(t.user.quota).toBe(100_000 + 5000 - 246);
      expect(relayState(server.ctx).users.peekBalance(user.id)?.available).toBe(t.user.quota);
      await server.ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1, svip: 1 }));
    });
  });
}
