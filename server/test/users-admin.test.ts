import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

type Client = Awaited<ReturnType<typeof loginAs>>;

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`user administration on ${engine.name}`, () => {
    let server: TestServer;
    let root: Client;
    let admin: Client;
    let admin2: Client;
    let common: Client;
    const row = (id: number) =>
      server.ctx.db.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const idOf = async (username: string) =>
      Number(
        (
          await server.ctx.db.db
            .selectFrom('users')
            .select('id')
            .where('username', '=', username)
            .executeTakeFirstOrThrow()
        ).id,
      );
    const count = async () => (await server.ctx.db.db.selectFrom('users').select('id').execute()).length;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      root = await loginAs(server, { username: 'root', role: Role.Root });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      admin2 = await loginAs(server, { username: 'admin2', role: Role.Admin });
      common = await loginAs(server, { username: 'common' });
    });
    afterAll(() => server?.close());

    it('refuses every admin route to a common user with a 403 and no data', async () => {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', '/api/user/?p=1&page_size=10'],
        ['GET', '/api/user/search?keyword=a'],
        ['GET', `/api/user/${admin.userId}`],
        ['POST', '/api/user/', { username: 'x1', password: 'password123' }],
        ['PUT', '/api/user/', { id: common.userId, quota: 999999 }],
        ['POST', '/api/user/manage', { id: admin.userId, action: 'disable' }],
        ['GET', '/api/group/'],
        ['GET', '/api/option/'],
        ['PUT', '/api/option/', { key: 'SystemName', value: 'x' }],
      ];
      const before = await count();
      for (const [method, path, body] of calls) {
        const r = await common.request(method, path, body);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(r.success).toBe(false);
        expect(r.data).toBeUndefined();
      }
      expect(await count()).toBe(before);
      expect(Number((await row(common.userId)).quota)).toBe(0);
      const anon = await new ConsoleClient(server.url).get('/api/user/');
      expect(anon.status).toBe(401);
    });

    it('lists users page by page, newest first, soft-deleted rows included with DeletedAt', async () => {
      for (const name of ['list1', 'list2', 'list3'])
        await root.post('/api/user/', { username: name, password: 'password123' });
      await root.post('/api/user/manage', { id: await idOf('list2'), action: 'delete' });
      const total = await count();
      const p1 = await admin.get('/api/user/?p=1&page_size=2');
      expect(p1.data).toMatchObject({ total, page: 1, page_size: 2 });
      expect(p1.data.items.map((u: { username: string }) => u.username)).toEqual(['list3', 'list2']);
      expect(p1.data.items[0].DeletedAt).toBeNull();
      expect(Date.parse(p1.data.items[1].DeletedAt)).toBeGreaterThan(0);
      for (const u of p1.data.items) {
        expect(u).not.toHaveProperty('password');
        expect(u).not.toHaveProperty('access_token');
      }
      const p2 = await admin.get('/api/user/?p=2&page_size=2');
      expect(p2.data.items.map((u: { username: string }) => u.username)).toEqual(['list1', 'common']);
      const p0 = await admin.get('/api/user/?p=0');
      expect(p0.data).toMatchObject({ page: 1, page_size: 10 });
      expect((await admin.get('/api/user/?p=abc')).status).toBe(400);
    });

    it('searches by id, username, display name, e-mail and group', async () => {
      await root.post('/api/user/', {
        username: 'findme',
        display_name: 'Needle Person',
        password: 'password123',
      });
      const id = await idOf('findme');
      await server.ctx.db.db
        .updateTable('users')
        .set({ email: 'needle@example.com', group: 'vip' })
        .where('id', '=', id)
        .execute();
      const names = async (q: string) =>
        ((await admin.get(`/api/user/search?${q}`)).data.items as Array<{ username: string }>).map(
          (u) => u.username,
        );
      expect(await names('keyword=findm')).toEqual(['findme']);
      expect(await names('keyword=Needle%20Per')).toEqual(['findme']);
      expect(await names('keyword=needle%40example')).toEqual(['findme']);
      expect(await names(`keyword=${id}`)).toContain('findme');
      expect(await names('group=vip')).toEqual(['findme']);
      expect(await names('keyword=findme&group=default')).toEqual([]);
      expect(await names('keyword=%25')).toEqual([]);
    });

    it('creates users with validation; the new user can log in', async () => {
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ username: '', password: 'password123' }, 400, 'username and password cannot be empty'],
        [{ username: 'nopass' }, 400, 'username and password cannot be empty'],
        [{ username: 'shortpw', password: 'short' }, 400, 'password length must not be less than 8'],
        [
          { username: 'waytoolongname', password: 'password123' },
          400,
          'username must be at most 12 characters',
        ],
        [
          { username: 'common', password: 'password123' },
          400,
          'username already exists or belongs to a deleted account',
        ],
        [{ username: 'badrole', password: 'password123', role: 5 }, 400, 'role must be 1 or 10'],
        [
          { username: 'peer', password: 'password123', role: Role.Admin },
          403,
          'you cannot create a user whose role is equal to or above yours',
        ],
      ];
      const before = await count();
      for (const [body, status, message] of cases) {
        const r = await admin.post('/api/user/', body);
        expect(r.status, message).toBe(status);
        expect(r.message).toBe(message);
      }
      expect(await count()).toBe(before);
      const made = await admin.post('/api/user/', {
        username: 'fresh',
        display_name: 'Fresh One',
        password: 'password123',
      });
      expect(made).toMatchObject({ status: 200, success: true });
      const fresh = await row(made.data.id);
      expect(fresh).toMatchObject({ username: 'fresh', display_name: 'Fresh One', role: 1 });
      expect((await new ConsoleClient(server.url).login('fresh', 'password123')).success).toBe(true);
      const byRoot = await root.post('/api/user/', {
        username: 'newadmin',
        password: 'password123',
        role: Role.Admin,
      });
      expect((await row(byRoot.data.id)).role).toBe(Role.Admin);
    });

    it('reads one user only below the caller (root reads anyone)', async () => {
      expect((await admin.get(`/api/user/${common.userId}`)).data.username).toBe('common');
      const peer = await admin.get(`/api/user/${admin2.userId}`);
      expect(peer.status).toBe(403);
      expect(peer.data).toBeUndefined();
      expect((await root.get(`/api/user/${admin2.userId}`)).data.username).toBe('admin2');
      expect((await admin.get('/api/user/999999')).status).toBe(404);
      expect((await admin.get('/api/user/abc')).status).toBe(400);
    });

    it('edits a user: quota as an absolute value through a management log row, group, name and password', async () => {
      await root.post('/api/user/', { username: 'edited', password: 'password123' });
      const id = await idOf('edited');
      const r = await admin.put('/api/user/', {
        id,
        username: 'edited',
        display_name: 'Edited',
        group: 'vip',
        quota: 750000,
        password: '',
      });
      expect(r).toMatchObject({ status: 200, success: true });
      expect(await row(id)).toMatchObject({ display_name: 'Edited', group: 'vip', quota: 750000 });
      await admin.put('/api/user/', { id, quota: 500000 });
      expect(Number((await row(id)).quota)).toBe(500000);
      const logs = await server.ctx.db.db
        .selectFrom('logs')
        .select(['type', 'quota', 'content'])
        .where('user_id', '=', id)
        .orderBy('id')
        .execute();
      expect(logs.map((l) => [l.type, Number(l.quota)])).toEqual([
        [3, 750000],
        [3, -250000],
      ]);
      expect(logs[0].content).toBe('Administrator admin changed the quota from 0 to 750000');
      expect((await server.ctx.users.get(id))?.quota).toBe(500000);

      await admin.put('/api/user/', { id, password: 'new-password-9' });
      expect((await new ConsoleClient(server.url).login('edited', 'new-password-9')).success).toBe(true);

      const snapshot = await row(id);
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ id, quota: -5 }, 400, 'quota must not be negative'],
        [{ id, quota: 1.5 }, 400, 'quota must be an integer'],
        [{ id, quota: '100' }, 400, 'quota must be an integer'],
        [{ id, group: 'nosuchgroup' }, 400, 'group nosuchgroup does not exist (add it to GroupRatio first)'],
        [{ id, password: 'short' }, 400, 'password length must not be less than 8'],
        [{ id, username: 'common' }, 400, 'username already exists or belongs to a deleted account'],
        [{ id, display_name: 'z'.repeat(21) }, 400, 'display_name must be at most 20 characters'],
        [{ id: 999999, quota: 5 }, 400, 'user not found'],
        [{ id: 'one', quota: 5 }, 400, 'id must be a user id'],
        [
          { id: admin2.userId, quota: 5 },
          403,
          'you cannot view or change a user whose role is equal to or above yours',
        ],
      ];
      for (const [body, status, message] of cases) {
        const res = await admin.put('/api/user/', body);
        expect(res.status, message).toBe(status);
        expect(res.message).toBe(message);
      }
      expect(await row(id)).toEqual(snapshot);
      expect(Number((await row(admin2.userId)).quota)).toBe(0);
    });

    it('applies manage actions with the role rules', async () => {
      await root.post('/api/user/', { username: 'target', password: 'password123' });
      const t = await idOf('target');
      const act = (c: Client, id: number, action: string) => c.post('/api/user/manage', { id, action });
      const rootId = root.userId;

      expect((await act(admin, t, 'disable')).data).toEqual({ role: 1, status: 2 });
      expect((await act(admin, t, 'enable')).data).toEqual({ role: 1, status: 1 });
      expect(await act(admin, t, 'promote')).toMatchObject({
        status: 403,
        message: 'only the root user can promote users to admin',
      });
      expect((await act(root, t, 'promote')).data).toEqual({ role: 10, status: 1 });
      expect(await act(root, t, 'promote')).toMatchObject({
        status: 400,
        message: 'this user is already an admin',
      });
      expect(await act(admin, t, 'demote')).toMatchObject({
        status: 403,
        message: 'you cannot manage a user whose role is equal to or above yours',
      });
      expect(await act(admin, t, 'disable')).toMatchObject({ status: 403 });
      expect((await act(root, t, 'demote')).data).toEqual({ role: 1, status: 1 });
      expect(await act(root, t, 'demote')).toMatchObject({
        status: 400,
        message: 'this user is already a common user',
      });

      for (const [action, message] of [
        ['disable', 'the root user cannot be disabled'],
        ['demote', 'the root user cannot be demoted'],
        ['delete', 'the root user cannot be deleted'],
      ]) {
        expect(await act(root, rootId, action)).toMatchObject({ status: 400, message });
        expect(await act(admin, rootId, action)).toMatchObject({ status: 400, message });
      }
      expect(await row(rootId)).toMatchObject({ role: 100, status: 1, deleted_at: null });

      expect(await act(admin, t, 'fly')).toMatchObject({
        status: 400,
        message: 'action must be one of promote, demote, disable, enable, delete',
      });
      expect(await act(admin, 999999, 'disable')).toMatchObject({ status: 400, message: 'user not found' });
      expect((await admin.post('/api/user/manage', '{"id":')).status).toBe(400);

      const del = await act(admin, t, 'delete');
      expect(del.data).toEqual({ role: 1, status: 3 });
      expect((await row(t)).deleted_at).not.toBeNull();
      expect(await act(admin, t, 'enable')).toMatchObject({
        status: 400,
        message: 'a deleted user cannot be enabled',
      });
      expect(await act(root, t, 'promote')).toMatchObject({
        status: 400,
        message: 'this user has been deleted',
      });
      expect((await row(t)).status).toBe(3);
    });

    it('makes a ban, a demotion and a deletion take effect on the next request', async () => {
      const victim = await loginAs(server, { username: 'victim', role: Role.Admin });
      expect((await victim.get('/api/user/?p=1')).status).toBe(200);
      await root.post('/api/user/manage', { id: victim.userId, action: 'demote' });
      expect((await victim.get('/api/user/?p=1')).status).toBe(403);
      expect((await victim.get('/api/user/self')).status).toBe(200);
      await root.post('/api/user/manage', { id: victim.userId, action: 'disable' });
      expect(await victim.get('/api/user/self')).toMatchObject({
        status: 403,
        message: 'this user has been banned',
      });
      await root.post('/api/user/manage', { id: victim.userId, action: 'enable' });
      expect((await victim.get('/api/user/self')).status).toBe(200);
      await root.post('/api/user/manage', { id: victim.userId, action: 'delete' });
      expect((await victim.get('/api/user/self')).status).toBe(401);
    });

    it('lists group names to admins', async () => {
      const r = await admin.get('/api/group/');
      expect(r.data).toEqual(['default', 'svip', 'vip']);
    });
  });
}
