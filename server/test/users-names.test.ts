import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasHiddenCharacters, nameSkeleton } from '../src/modules/users/names.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`name rules on ${engine.name}`, () => {
    let server: TestServer;
    let root: ConsoleClient;
    const anon = () => new ConsoleClient(server.url);
    const register = (username: string, extra: Record<string, unknown> = {}) =>
      anon().post('/api/user/register', {
        username,
        password: 'password123',
        password2: 'password123',
        ...extra,
      });
    const count = async () =>
      Number(
        (
          await server.ctx.db.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        )?.n,
      );

    beforeAll(async () => {
      server = await startServer({ db: engine });
      root = await loginAs(server, { username: 'root', role: Role.Root });
      await loginAs(server, { username: 'Admin', role: Role.Admin });
    });
    afterAll(() => server?.close());

    it('keeps usernames unique whatever their case or Unicode width', async () => {
      expect((await register('Alice')).success).toBe(true);
      const before = await count();
      for (const name of ['alice', 'ALICE', 'Ａｌｉｃｅ']) {
        const r = await register(name);
        expect(r.status, name).toBe(400);
        expect(r.message, name).toMatch(/already exists/);
      }
      const created = await root.post('/api/user/', { username: 'aLiCe', password: 'password123' });
      expect(created.status).toBe(400);
      expect(await count()).toBe(before);
    });

    it("refuses names that read like an administrator's", async () => {
      const before = await count();
      // Cyrillic а, о; digits for letters; capital I for l.
      for (const name of ['аdmin', 'adm1n', 'ADMlN', 'rооt', 'r00t', 'Root']) {
        const r = await register(name);
        expect(r.status, name).toBe(400);
        expect(r.message, name).toMatch(/administrator|already exists/);
      }
      expect(await count()).toBe(before);
      // An admin cannot rename someone into a look-alike either.
      expect((await register('mallory')).success).toBe(true);
      const id = (
        await server.ctx.db.db
          .selectFrom('users')
          .select('id')
          .where('username', '=', 'mallory')
          .executeTakeFirstOrThrow()
      ).id;
      const renamed = await root.put('/api/user/', { id: Number(id), username: 'rоot' });
      expect(renamed.status).toBe(400);
      expect(renamed.message).toMatch(/administrator/);
      // Ordinary names that merely share letters are fine.
      expect((await register('adminfan')).success).toBe(true);
    });

    it('refuses control, invisible and text-direction characters in usernames and display names', async () => {
      const before = await count();
      for (const name of ['bob\u0000', 'bo\u202eb', '\u200bbob', 'bob\u2066', 'b\u0085ob', 'bo\u00adb']) {
        const r = await register(name);
        expect(r.status, JSON.stringify(name)).toBe(400);
        expect(r.message).toMatch(/control, invisible or text-direction/);
      }
      expect(await count()).toBe(before);
      const user = await loginAs(server, { username: 'carol' });
      for (const display_name of ['Carol\u202egnp.exe', 'Ca\u0000rol', 'Car\ufeffol']) {
        const r = await user.put('/api/user/self', { display_name });
        expect(r.status, JSON.stringify(display_name)).toBe(400);
      }
      expect((await user.get('/api/user/self')).data.display_name).toBe('carol');
      expect((await user.put('/api/user/self', { display_name: '卡罗尔 Carol' })).success).toBe(true);
    });
  });
}

describe('name helpers', () => {
  it('folds look-alikes into one skeleton', () => {
    expect(nameSkeleton('аdmin')).toBe(nameSkeleton('admin'));
    expect(nameSkeleton('ADM1N')).toBe(nameSkeleton('admin'));
    expect(nameSkeleton('rnallory')).toBe(nameSkeleton('mallory'));
    expect(nameSkeleton('bob')).not.toBe(nameSkeleton('rob'));
    expect(hasHiddenCharacters('普通的名字 plain')).toBe(false);
    expect(hasHiddenCharacters('x\u202ey')).toBe(true);
  });
});
