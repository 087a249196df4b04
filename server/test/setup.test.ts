import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

const good = {
  username: 'admin',
  password: 'admin-pass-1',
  confirmPassword: 'admin-pass-1',
  SelfUseModeEnabled: false,
  DemoSiteEnabled: false,
};

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`first-run setup on ${engine.name}`, () => {
    let server: TestServer;
    let c: ConsoleClient;
    beforeEach(async () => {
      server = await startServer({ db: engine });
      c = new ConsoleClient(server.url);
    });
    afterEach(() => server?.close());

    const userCount = async () => (await server.ctx.db.db.selectFrom('users').select('id').execute()).length;

    it('reports a fresh install, then creates root with 100000000 quota and the chosen usage mode', async () => {
      const before = await c.get('/api/setup');
      expect(before.data).toEqual({ status: false, root_init: false, database_type: engine.name });
      expect((await c.get('/api/status')).data).toMatchObject({
        setup: false,
        root_init: false,
        database_type: engine.name,
      });

      const r = await c.post('/api/setup', { ...good, SelfUseModeEnabled: true });
      expect(r.status).toBe(200);
      expect(r.success).toBe(true);

      expect((await c.get('/api/setup')).data).toEqual({
        status: true,
        root_init: true,
        database_type: engine.name,
      });
      const status = (await c.get('/api/status')).data;
      expect(status).toMatchObject({
        setup: true,
        root_init: true,
        self_use_mode_enabled: true,
        demo_site_enabled: false,
      });
      // Links in mails are built from the address the root administrator used for setup.
      expect(server.ctx.options.get('ServerAddress')).toBe(server.url);

      const login = await c.login('admin', 'admin-pass-1');
      expect(login.data).toMatchObject({
        username: 'admin',
        role: 100,
        status: 1,
        display_name: 'Root User',
      });
      const self = await c.get('/api/user/self');
      expect(self.data.quota).toBe(100000000);
      const logs = await server.ctx.db.db
        .selectFrom('logs')
        .select(['type', 'quota'])
        .where('user_id', '=', login.data.id)
        .execute();
      expect(logs).toEqual([{ type: 4, quota: 100000000 }]);
    });

    it('accepts the demo mode as the string flags the form may send', async () => {
      const r = await c.post('/api/setup', { ...good, DemoSiteEnabled: 'true', SelfUseModeEnabled: 'false' });
      expect(r.success).toBe(true);
      expect((await c.get('/api/status')).data).toMatchObject({
        demo_site_enabled: true,
        self_use_mode_enabled: false,
      });
    });

    it('validates the form with the spec messages and writes nothing', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, username: '   ' }, 'Please enter the admin username'],
        [{ ...good, username: undefined }, 'Please enter the admin username'],
        [
          { ...good, password: 'short', confirmPassword: 'short' },
          'Password must be at least 8 characters long',
        ],
        [{ ...good, confirmPassword: 'admin-pass-2' }, 'The two passwords do not match'],
        [
          { ...good, username: 'a-very-long-admin-name' },
          'the admin username must be at most 12 characters, without spaces',
        ],
        [
          { ...good, SelfUseModeEnabled: true, DemoSiteEnabled: true },
          'choose one usage mode: self-use or demo site, not both',
        ],
        [
          { ...good, SelfUseModeEnabled: 'maybe' },
          'SelfUseModeEnabled: usage mode flags must be true or false',
        ],
        [{ ...good, password: 12345678 }, 'password must be a string'],
      ];
      for (const [body, message] of cases) {
        const r = await c.post('/api/setup', body);
        expect(r.status, message).toBe(400);
        expect(r.message).toBe(message);
      }
      expect((await c.post('/api/setup', '{"username":')).status).toBe(400);
      expect((await c.post('/api/setup', '[1,2]')).message).toBe('request body must be a JSON object');
      expect(await userCount()).toBe(0);
      expect((await c.get('/api/setup')).data.status).toBe(false);
    });

    it('refuses a second setup, also when two arrive at once', async () => {
      const [a, b] = await Promise.all([
        c.post('/api/setup', good),
        c.post('/api/setup', { ...good, username: 'other' }),
      ]);
      expect([a.success, b.success].sort()).toEqual([false, true]);
      const loser = a.success ? b : a;
      expect(loser.status).toBe(400);
      expect(loser.message).toBe('the system has already been initialized');
      expect(await userCount()).toBe(1);
      const again = await c.post('/api/setup', { ...good, username: 'third' });
      expect(again.status).toBe(400);
      expect(again.message).toBe('the system has already been initialized');
      expect(await userCount()).toBe(1);
    });
  });
}
