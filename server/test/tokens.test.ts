import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

const future = () => Math.floor(Date.now() / 1000) + 3600;

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`tokens on ${engine.name}`, () => {
    let server: TestServer;
    let alice: ConsoleClient;
    let bob: ConsoleClient;
    const events: string[] = [];

    beforeAll(async () => {
      server = await startServer({ db: engine });
      server.ctx.bus.subscribe('token:*', (id) => events.push(id));
      alice = await loginAs(server, { username: 'alice' });
      bob = await loginAs(server, { username: 'bob', group: 'vip' });
    });
    afterAll(() => server?.close());

    const count = async () =>
      Number(
        (
          await server.ctx.db.db
            .selectFrom('tokens')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('needs a login', async () => {
      const r = await fetch(`${server.url}/api/token/?p=0&size=10`);
      expect(r.status).toBe(401);
    });

    it('creates a token with a 48-character key and announces it', async () => {
      const r = await alice.post('/api/token/', {
        name: 'main',
        remain_quota: 500000,
        expired_time: -1,
        unlimited_quota: false,
      });
      expect(r.status).toBe(200);
      expect(r.success).toBe(true);
      const [t] = r.data;
      expect(t.name).toBe('main');
      expect(t.key).toMatch(/^[0-9a-zA-Z]{48}$/);
      expect(t.status).toBe(1);
      expect(t.remain_quota).toBe(500000);
      expect(t.unlimited_quota).toBe(false);
      expect(t.expired_time).toBe(-1);
      expect(events).toContain(String(t.id));
      const list = await alice.get('/api/token/?p=0&size=10');
      expect(list.data.map((x: { id: number }) => x.id)).toEqual([t.id]);
    });

    it('creates a batch: extra tokens get the name plus a 6-character suffix', async () => {
      const r = await alice.post('/api/token/', { name: 'batch', remain_quota: 100, count: 3 });
      expect(r.success).toBe(true);
      expect(r.data).toHaveLength(3);
      expect(r.data[0].name).toBe('batch');
      for (const t of r.data.slice(1)) expect(t.name).toMatch(/^batch-[0-9a-zA-Z]{6}$/);
      // A full-form save of a batch token sends its (suffixed) name back unchanged.
      const long = await alice.post('/api/token/', { name: 'n'.repeat(50), count: 2 });
      const suffixed = long.data[1];
      expect(suffixed.name).toHaveLength(57);
      expect(
        (await alice.put('/api/token/', { id: suffixed.id, name: suffixed.name, remain_quota: 7 })).data
          .remain_quota,
      ).toBe(7);
      expect((await alice.put('/api/token/', { id: suffixed.id, name: 'm'.repeat(51) })).status).toBe(400);
      for (const t of long.data) await alice.del(`/api/token/${t.id}`);
      expect(new Set(r.data.map((t: { key: string }) => t.key)).size).toBe(3);
    });

    it('pages from p=0 with size, newest first, and reports the total', async () => {
      const first = await alice.request('GET', '/api/token/?p=0&size=2');
      const second = await alice.get('/api/token/?p=1&size=2');
      expect(first.data).toHaveLength(2);
      expect(second.data).toHaveLength(2);
      const ids = [...first.data, ...second.data].map((t: { id: number }) => t.id);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      const raw = (await (
        await fetch(`${server.url}/api/token/?p=0&size=2`, {
          headers: { cookie: alice.cookie, 'new-api-user': String(alice.userId) },
        })
      ).json()) as { total: number };
      expect(raw.total).toBe(4);
    });

    it('refuses every invalid field with a 400 and writes nothing', async () => {
      const before = await count();
      const bad: Array<[Record<string, unknown>, RegExp]> = [
        [{ remain_quota: 1 }, /name/],
        [{ name: '' }, /name/],
        [{ name: '   ' }, /name/],
        [{ name: 'x'.repeat(51) }, /50/],
        [{ name: 'n', remain_quota: -1 }, /negative/],
        [{ name: 'n', remain_quota: 1.5 }, /integer/],
        [{ name: 'n', remain_quota: '100' }, /number/],
        [{ name: 'n', expired_time: 1000 }, /future/],
        [{ name: 'n', expired_time: 0 }, /future/],
        [{ name: 'n', count: 0 }, /count/],
        [{ name: 'n', count: 101 }, /count/],
        [{ name: 'n', count: 2.5 }, /count/],
        [{ name: 'n', allow_ips: '10.0.0.1\nnot-an-ip' }, /not-an-ip/],
        [{ name: 'n', allow_ips: '10.0.0.0/33' }, /10\.0\.0\.0\/33/],
        [{ name: 'n', allow_ips: '2001:db8::/129' }, /CIDR/],
        [{ name: 'n', group: 'svip' }, /group/],
        [{ name: 'n', unlimited_quota: 'yes' }, /unlimited_quota/],
      ];
      for (const [body, msg] of bad) {
        const r = await alice.post('/api/token/', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.success).toBe(false);
        expect(r.message, JSON.stringify(body)).toMatch(msg);
      }
      expect(await count()).toBe(before);
    });

    it('accepts usable groups: the UserUsableGroups option plus the user own group', async () => {
      expect((await alice.post('/api/token/', { name: 'g', group: 'vip' })).success).toBe(true);
      expect((await bob.post('/api/token/', { name: 'g', group: 'vip' })).success).toBe(true);
      await server.ctx.options.set('UserUsableGroups', '{"default":"Default"}');
      expect((await alice.post('/api/token/', { name: 'g', group: 'vip' })).status).toBe(400);
      expect((await bob.post('/api/token/', { name: 'g', group: 'vip' })).success).toBe(true);
      await server.ctx.options.set('UserUsableGroups', '{"default":"默认分组","vip":"vip分组"}');
    });

    it('stores model limits and allow lists in canonical form', async () => {
      const r = await alice.post('/api/token/', {
        name: 'limited',
        model_limits_enabled: true,
        model_limits: ' gpt-4o, gpt-4o-mini ,gpt-4o,',
        allow_ips: '10.0.0.0/8\n  2001:db8::/32 \n\n192.168.1.7',
      });
      expect(r.success).toBe(true);
      expect(r.data[0].model_limits_enabled).toBe(true);
      expect(r.data[0].model_limits).toBe('gpt-4o,gpt-4o-mini');
      expect(r.data[0].allow_ips).toBe('10.0.0.0/8\n2001:db8::/32\n192.168.1.7');
    });

    it('keeps tokens private: another user gets "not found" and changes nothing', async () => {
      const mine = (await alice.get('/api/token/?p=0&size=1')).data[0];
      const read = await bob.get(`/api/token/${mine.id}`);
      expect(read.status).toBe(404);
      expect(read.data).toBeUndefined();
      expect((await bob.put('/api/token/', { id: mine.id, name: 'stolen' })).status).toBe(404);
      expect((await bob.put('/api/token/?status_only=true', { id: mine.id, status: 2 })).status).toBe(404);
      expect((await bob.del(`/api/token/${mine.id}`)).status).toBe(404);
      expect(
        (await bob.get('/api/token/?p=0&size=100')).data.some((t: { id: number }) => t.id === mine.id),
      ).toBe(false);
      expect((await bob.get(`/api/token/search?keyword=${mine.name}`)).data).toEqual([]);
      const after = await alice.get(`/api/token/${mine.id}`);
      expect(after.data.name).toBe(mine.name);
      expect(after.data.status).toBe(1);
    });

    it('searches by name keyword and by key (with or without sk-)', async () => {
      const main = (await alice.get('/api/token/search?keyword=mai')).data;
      expect(main.map((t: { name: string }) => t.name)).toEqual(['main']);
      const byKey = await alice.get(`/api/token/search?token=sk-${main[0].key.slice(0, 20)}`);
      expect(byKey.data.map((t: { id: number }) => t.id)).toEqual([main[0].id]);
      expect((await alice.get('/api/token/search?keyword=%25')).data).toEqual([]);
    });

    it('updates fields, and toggles status with status_only', async () => {
      const t = (await alice.get('/api/token/search?keyword=main')).data[0];
      const r = await alice.put('/api/token/', {
        id: t.id,
        name: 'renamed',
        remain_quota: 42,
        expired_time: future(),
      });
      expect(r.success).toBe(true);
      expect(r.data.name).toBe('renamed');
      expect(r.data.remain_quota).toBe(42);
      const off = await alice.put('/api/token/?status_only=true', { id: t.id, status: 2 });
      expect(off.data.status).toBe(2);
      expect((await alice.get(`/api/token/${t.id}`)).data.status).toBe(2);
      const on = await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 });
      expect(on.data.status).toBe(1);
      expect((await alice.put('/api/token/?status_only=true', { id: t.id, status: 3 })).status).toBe(400);
      expect((await alice.put('/api/token/', { id: t.id, name: '' })).status).toBe(400);
      expect((await alice.put('/api/token/', { id: t.id, expired_time: 5 })).status).toBe(400);
      expect((await alice.get(`/api/token/${t.id}`)).data.name).toBe('renamed');
    });

    it('refuses to enable an expired or exhausted token with a clear message', async () => {
      const [t] = (await alice.post('/api/token/', { name: 'old', remain_quota: 10 })).data;
      const past = Math.floor(Date.now() / 1000) - 60;
      await server.ctx.db.db
        .updateTable('tokens')
        .set({ status: 3, expired_time: past })
        .where('id', '=', t.id)
        .execute();
      const r = await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 });
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/expired/);
      expect((await alice.get(`/api/token/${t.id}`)).data.status).toBe(3);
      // Renaming keeps the (past) expiry as it is; moving the expiry into the future brings the token back.
      expect(
        (await alice.put('/api/token/', { id: t.id, name: 'old2', expired_time: past })).data.status,
      ).toBe(3);
      expect((await alice.put('/api/token/', { id: t.id, expired_time: -1 })).data.status).toBe(1);

      await server.ctx.db.db
        .updateTable('tokens')
        .set({ status: 4, remain_quota: 0 })
        .where('id', '=', t.id)
        .execute();
      const ex = await alice.put('/api/token/?status_only=true', { id: t.id, status: 1 });
      expect(ex.status).toBe(400);
      expect(ex.message).toMatch(/quota/);
      expect(
        (await alice.put('/api/token/', { id: t.id, unlimited_quota: true, status: 1 })).data.status,
      ).toBe(1);
    });

    it('soft-deletes: the token disappears from lists and reads, the row stays', async () => {
      const [t] = (await alice.post('/api/token/', { name: 'bye' })).data;
      events.length = 0;
      const r = await alice.del(`/api/token/${t.id}/`);
      expect(r.success).toBe(true);
      expect(events).toEqual([String(t.id)]);
      expect((await alice.get(`/api/token/${t.id}`)).status).toBe(404);
      expect(
        (await alice.get('/api/token/?p=0&size=100')).data.some((x: { id: number }) => x.id === t.id),
      ).toBe(false);
      const row = await server.ctx.db.db
        .selectFrom('tokens')
        .select('deleted_at')
        .where('id', '=', t.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).toBeGreaterThan(0);
      expect((await alice.del(`/api/token/${t.id}`)).status).toBe(404);
    });
  });
}
