import { Role } from '@modelgate/shared';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`console auth on ${engine.name}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ db: engine });
    });
    afterAll(() => server?.close());

    it('logs in with a signed HttpOnly SameSite=Strict 30-day cookie and returns only the public fields', async () => {
      await loginAs(server, { username: 'alice', password: 'alice-pass-1' });
      const res = await fetch(`${server.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'alice-pass-1' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.success).toBe(true);
      expect(Object.keys(body.data).sort()).toEqual([
        'display_name',
        'group',
        'id',
        'role',
        'status',
        'username',
      ]);
      expect(body.data).toMatchObject({
        username: 'alice',
        display_name: 'alice',
        role: 1,
        status: 1,
        group: 'default',
      });
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
      expect(cookie).toBeDefined();
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Max-Age=2592000/);
      expect(cookie).toMatch(/Path=\//);
    });

    it('refuses a wrong password, an unknown user and missing fields with a 400 and no cookie', async () => {
      const c = new ConsoleClient(server.url);
      const wrong = await c.login('alice', 'not-her-password');
      expect(wrong.status).toBe(400);
      expect(wrong.message).toBe('wrong username or password');
      expect(c.cookie).toBe('');
      expect((await c.login('nobody', 'whatever123')).message).toBe('wrong username or password');
      const empty = await c.post('/api/user/login', { username: '', password: '' });
      expect(empty.status).toBe(400);
      expect(empty.message).toBe('please enter username and password');
      const typed = await c.post('/api/user/login', { username: 12, password: ['x'] });
      expect(typed.status).toBe(400);
      expect(typed.message).toBe('please enter username and password');
      const bad = await c.post('/api/user/login', '{nope');
      expect(bad.status).toBe(400);
      expect(bad.message).toBe('invalid JSON in request body');
    });

    it('needs a session or access token, and the New-Api-User header naming that user', async () => {
      const anon = new ConsoleClient(server.url);
      const none = await anon.get('/api/user/self');
      expect(none.status).toBe(401);
      expect(none).toMatchObject({ success: false, message: 'not logged in and no access token provided' });

      const bob = await loginAs(server, { username: 'bob' });
      const self = await bob.get('/api/user/self');
      expect(self.status).toBe(200);
      expect(self.data.username).toBe('bob');
      expect(self.data).not.toHaveProperty('password');
      expect(self.data).not.toHaveProperty('access_token');

      const missing = await bob.get('/api/user/self', { 'new-api-user': '' });
      expect(missing.status).toBe(401);
      expect(missing.message).toBe('missing New-Api-User header');
      const garbage = await bob.get('/api/user/self', { 'new-api-user': 'abc' });
      expect(garbage.status).toBe(401);
      expect(garbage.message).toBe('New-Api-User header must be a user id');
      const other = await bob.get('/api/user/self', { 'new-api-user': String(bob.userId + 1000) });
      expect(other.status).toBe(401);
      expect(other.message).toBe('New-Api-User does not match the logged-in user');
    });

    it('rejects a tampered or forged cookie', async () => {
      const carol = await loginAs(server, { username: 'carol' });
      const [name, value] = carol.cookie.split('=');
      const decoded = decodeURIComponent(value);
      // Claim to be user 1 while keeping carol's signature.
      const forged = new ConsoleClient(server.url);
      forged.cookie = `${name}=${encodeURIComponent(decoded.replace(/^\d+/, '1'))}`;
      forged.userId = 1;
      const r = await forged.get('/api/user/self');
      expect(r.status).toBe(401);
      expect(r.message).toMatch(/log in again/);
    });

    it('applies a ban and a demotion on the very next request', async () => {
      const dave = await loginAs(server, { username: 'dave', role: Role.Admin });
      expect((await dave.get('/api/user/self')).status).toBe(200);
      await server.ctx.db.db.updateTable('users').set({ status: 2 }).where('id', '=', dave.userId).execute();
      server.ctx.bus.publish(`user:${dave.userId}`);
      const banned = await dave.get('/api/user/self');
      expect(banned.status).toBe(403);
      expect(banned.message).toBe('this user has been banned');
      const relog = await new ConsoleClient(server.url).login('dave', 'password123');
      expect(relog.status).toBe(403);
      expect(relog.message).toBe('this user has been banned');
    });

    it('forgets the session on logout', async () => {
      const erin = await loginAs(server, { username: 'erin' });
      const out = await erin.get('/api/user/logout');
      expect(out.success).toBe(true);
      expect(erin.cookie).toBe('');
      expect((await erin.get('/api/user/self')).status).toBe(401);
    });

    it('accepts a session issued by another instance sharing SESSION_SECRET and the database', async () => {
      const frank = await loginAs(server, { username: 'frank' });
      const cfg = loadConfig({
        SQL_DSN: server.ctx.config.sqlDsn,
        SQLITE_PATH: server.ctx.config.sqlitePath,
        SESSION_SECRET: 'test-session-secret',
        GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
        LOG_LEVEL: 'silent',
      });
      const ctx2 = await createContext(cfg, pino({ level: 'silent' }));
      const app2 = await buildApp(ctx2);
      await app2.listen({ port: 0, host: '127.0.0.1' });
      try {
        const addr = app2.server.address();
        const second = new ConsoleClient(
          `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
        );
        second.cookie = frank.cookie;
        second.userId = frank.userId;
        const r = await second.get('/api/user/self');
        expect(r.status).toBe(200);
        expect(r.data.username).toBe('frank');

        const otherSecret = await startServer({ db: engine, env: { SESSION_SECRET: 'a-different-secret' } });
        try {
          const third = new ConsoleClient(otherSecret.url);
          third.cookie = frank.cookie;
          third.userId = frank.userId;
          expect((await third.get('/api/user/self')).status).toBe(401);
        } finally {
          await otherSecret.close();
        }
      } finally {
        await app2.close();
        await ctx2.close();
      }
    });
  });
}
