import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaOf, topUpLogs } from './support/balances.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`redemption codes on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient;
    let alice: ConsoleClient & { userId: number };

    const balance = (userId: number) => quotaOf(server.ctx, userId);
    const topupLogs = (userId: number) => topUpLogs(server.ctx, userId);
    const codeCount = async () =>
      Number(
        (
          await server.ctx.db.db
            .selectFrom('redemptions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const create = async (body: Record<string, unknown>) => {
      const r = await admin.post('/api/redemption/', body);
      expect(r.success, r.message).toBe(true);
      return r.data as string[];
    };
    const byKey = async (key: string) => {
      const r = await admin.get(`/api/redemption/search?keyword=${key}`);
      return r.data.items[0];
    };

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      alice = await loginAs(server, { username: 'alice' });
    });
    afterAll(() => server?.close());

    it('creates a batch of unique 32-character codes and lists them newest first', async () => {
      const keys = await create({ name: 'batch-a', quota: 100000, count: 3 });
      expect(keys).toHaveLength(3);
      for (const k of keys) expect(k).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(keys).size).toBe(3);
      const list = await admin.get('/api/redemption/?p=1&page_size=2');
      expect(list.data.total).toBeGreaterThanOrEqual(3);
      expect(list.data.page).toBe(1);
      expect(list.data.items).toHaveLength(2);
      expect(list.data.items[0].id).toBeGreaterThan(list.data.items[1].id);
      expect(list.data.items[0]).toMatchObject({
        name: 'batch-a',
        quota: 100000,
        status: 1,
        used_user_id: 0,
      });
    });

    it('names an unnamed batch after its quota', async () => {
      const [key] = await create({ name: '', quota: 1_000_000 });
      expect((await byKey(key)).name).toBe('$2.00');
    });

    it('refuses bad input with the spec messages and creates nothing', async () => {
      const before = await codeCount();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'x'.repeat(21), quota: 100, count: 1 }, '兑换码名称长度必须在1-20之间'],
        [{ name: 'ok', quota: 100, count: 0 }, '兑换码个数必须大于0'],
        [{ name: 'ok', quota: 100, count: 101 }, '一次兑换码批量生成的个数不能大于 100'],
        [{ name: 'ok', quota: 100, count: 2.5 }, '兑换码个数必须是整数'],
        [{ name: 'ok', quota: 1.5, count: 1 }, '额度必须是大于 0 的整数'],
        [{ name: 'ok', quota: 0, count: 1 }, '额度必须是大于 0 的整数'],
        [{ name: 'ok', quota: -5, count: 1 }, '额度必须是大于 0 的整数'],
        [{ name: 'ok', count: 1 }, '额度必须是大于 0 的整数'],
      ];
      for (const [body, message] of cases) {
        const r = await admin.post('/api/redemption/', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.message).toBe(message);
      }
      expect(await codeCount()).toBe(before);
    });

    it('is admin-only', async () => {
      for (const r of [
        await alice.get('/api/redemption/'),
        await alice.post('/api/redemption/', { name: 'x', quota: 1, count: 1 }),
        await alice.put('/api/redemption/', { id: 1, name: 'x', quota: 1 }),
        await alice.del('/api/redemption/1'),
      ]) {
        expect(r.status).toBe(403);
        expect(r.success).toBe(false);
      }
    });

    it('searches by name, id and key', async () => {
      const [key] = await create({ name: 'findme-42', quota: 7, count: 1 });
      const code = await byKey(key);
      expect(code.key).toBe(key);
      const byName = await admin.get('/api/redemption/search?keyword=findme');
      expect(byName.data.items.map((c: { key: string }) => c.key)).toEqual([key]);
      const byId = await admin.get(`/api/redemption/search?keyword=${code.id}`);
      expect(byId.data.items.map((c: { id: number }) => c.id)).toContain(code.id);
      expect((await admin.get('/api/redemption/search?keyword=100%25')).data.items).toEqual([]);
      expect((await admin.get('/api/redemption/?p=1e20')).status).toBe(400);
      expect((await admin.get('/api/redemption/1e30')).status).toBe(400);
      expect((await admin.put('/api/redemption/', { id: 1e30, name: 'x', quota: 1 })).status).toBe(400);
      expect((await admin.del('/api/redemption/abc')).status).toBe(400);
      expect((await admin.get('/api/redemption/?page_size=500')).status).toBe(400);
      expect((await admin.get(`/api/redemption/${code.id}`)).data).toMatchObject({
        id: code.id,
        key,
        quota: 7,
      });
    });

    it('redeems a code once, credits the quota and records a top-up log row', async () => {
      const [key] = await create({ name: 'gift', quota: 250000 });
      const before = await balance(alice.userId);
      const r = await alice.post('/api/user/topup', { key });
      expect(r.success, r.message).toBe(true);
      expect(r.data).toBe(250000);
      expect(await balance(alice.userId)).toBe(before + 250000);
      const code = await byKey(key);
      expect(code).toMatchObject({ status: 3, used_user_id: alice.userId });
      const logs = await topupLogs(alice.userId);
      expect(logs.some((l) => Number(l.quota) === 250000 && l.content?.includes(`兑换码ID ${code.id}`))).toBe(
        true,
      );

      const again = await alice.post('/api/user/topup', { key });
      expect(again.status).toBe(400);
      expect(again.message).toBe('兑换失败，该兑换码已被使用');
      expect(await balance(alice.userId)).toBe(before + 250000);
    });

    it('refuses empty, unknown, disabled and deleted codes without changing anything', async () => {
      const bob = await loginAs(server, { username: 'bob' });
      const [disabledKey, deletedKey] = await create({ name: 'nope', quota: 5, count: 2 });
      const disabled = await byKey(disabledKey);
      expect(
        (await admin.put('/api/redemption/?status_only=true', { id: disabled.id, status: 2 })).success,
      ).toBe(true);
      const deleted = await byKey(deletedKey);
      expect((await admin.del(`/api/redemption/${deleted.id}/`)).success).toBe(true);
      expect((await admin.get(`/api/redemption/${deleted.id}`)).status).toBe(404);

      const cases: Array<[unknown, string]> = [
        [{ key: '' }, '请输入兑换码！'],
        [{ key: '   ' }, '请输入兑换码！'],
        [{}, '请输入兑换码！'],
        [{ key: 'f'.repeat(32) }, '兑换失败，无效的兑换码'],
        [{ key: disabledKey }, '兑换失败，该兑换码已被禁用'],
        [{ key: deletedKey }, '兑换失败，无效的兑换码'],
      ];
      for (const [body, message] of cases) {
        const r = await bob.post('/api/user/topup', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.message).toBe(message);
      }
      expect(await balance(bob.userId)).toBe(0);
      expect(await topupLogs(bob.userId)).toEqual([]);
      expect((await byKey(disabledKey)).status).toBe(2);
    });

    it('edits only unused codes and never re-enables a used one', async () => {
      const [key] = await create({ name: 'editable', quota: 10 });
      const code = await byKey(key);
      const edited = await admin.put('/api/redemption/', { id: code.id, name: '改名', quota: 20 });
      expect(edited.success, edited.message).toBe(true);
      expect(edited.data).toMatchObject({ name: '改名', quota: 20 });
      expect((await admin.put('/api/redemption/', { id: code.id, name: '', quota: 20 })).message).toBe(
        '兑换码名称长度必须在1-20之间',
      );

      expect((await alice.post('/api/user/topup', { key })).data).toBe(20);
      const used = await admin.put('/api/redemption/', { id: code.id, name: 'again', quota: 999 });
      expect(used.status).toBe(400);
      expect(used.message).toBe('只能编辑未使用的兑换码');
      const enable = await admin.put('/api/redemption/?status_only=true', { id: code.id, status: 1 });
      expect(enable.status).toBe(400);
      expect(await byKey(key)).toMatchObject({ status: 3, quota: 20, name: '改名' });
      expect((await admin.put('/api/redemption/?status_only=true', { id: code.id, status: 3 })).status).toBe(
        400,
      );
      expect((await admin.put('/api/redemption/', { id: 999999, name: 'x', quota: 1 })).status).toBe(404);
    });

    it('credits once when 50 requests race for one code', async () => {
      const [key] = await create({ name: 'race', quota: 333333 });
      const racers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => loginAs(server, { username: `racer${i}` })),
      );
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => racers[i % 5].post('/api/user/topup', { key })),
      );
      const winners = replies.filter((r) => r.success);
      expect(winners).toHaveLength(1);
      for (const r of replies.filter((x) => !x.success)) {
        expect([400, 429]).toContain(r.status);
        expect(r.status === 429 || r.message === '兑换失败，该兑换码已被使用').toBe(true);
      }
      const balances = await Promise.all(racers.map((r) => balance(r.userId)));
      expect(balances.reduce((a, b) => a + b, 0)).toBe(333333);
      const logs = (await Promise.all(racers.map((r) => topupLogs(r.userId)))).flat();
      expect(logs).toHaveLength(1);
      expect(Number(logs[0].quota)).toBe(333333);
    });

    it('slows down a user who keeps trying wrong codes', async () => {
      const guesser = await loginAs(server, { username: 'guesser' });
      for (let i = 0; i < 10; i++)
        expect((await guesser.post('/api/user/topup', { key: `wrong${i}` })).status).toBe(400);
      const [key] = await create({ name: 'later', quota: 1 });
      const r = await guesser.post('/api/user/topup', { key });
      expect(r.status).toBe(429);
      expect(await balance(guesser.userId)).toBe(0);
      expect((await byKey(key)).status).toBe(1);
    });
  });
}
