import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES, REDIS_URL, redisUp } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

/** A second client carrying a copy of `from`'s cookie, as an attacker who copied it would. */
function copyOf(from: ConsoleClient, baseUrl = from.baseUrl): ConsoleClient {
  const c = new ConsoleClient(baseUrl);
  c.cookie = from.cookie;
  c.userId = from.userId;
  return c;
}

const works = async (c: ConsoleClient) => (await c.get('/api/user/self')).status === 200;

describe('sessions end for real', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('revokes the session on logout: a copied cookie stops working, other sessions go on', async () => {
    const alice = await loginAs(server, { username: 'alice', password: 'password123' });
    const other = new ConsoleClient(server.url);
    expect((await other.login('alice', 'password123')).success).toBe(true);
    const stolen = copyOf(alice);
    expect(await works(stolen)).toBe(true);

    expect((await alice.get('/api/user/logout')).success).toBe(true);
    expect(alice.cookie).toBe('');
    const refused = await stolen.get('/api/user/self');
    expect(refused.status).toBe(401);
    expect(await works(other)).toBe(true);
    const row = await server.ctx.db.db.selectFrom('revoked_sessions').selectAll().execute();
    expect(row).toHaveLength(1);
    expect(row[0].expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600);
  });

  it('ends every session of the account on "log out everywhere"', async () => {
    const bob = await loginAs(server, { username: 'bob', password: 'password123' });
    const laptop = new ConsoleClient(server.url);
    expect((await laptop.login('bob', 'password123')).success).toBe(true);
    const stolen = copyOf(laptop);
    const carol = await loginAs(server, { username: 'carol', password: 'password123' });

    const r = await bob.post('/api/user/logout_all');
    expect(r.success).toBe(true);
    for (const c of [bob, laptop, stolen]) expect((await c.get('/api/user/self')).status).toBe(401);
    expect(await works(carol)).toBe(true);
    // Logging in again works.
    expect((await new ConsoleClient(server.url).login('bob', 'password123')).success).toBe(true);
    expect((await new ConsoleClient(server.url).post('/api/user/logout_all')).status).toBe(401);
  });

  it('ends older sessions on a password change and keeps the one that changed it', async () => {
    const dave = await loginAs(server, { username: 'dave', password: 'password123' });
    const stolen = copyOf(dave);
    const r = await dave.put('/api/user/self', {
      password: 'new-password-9',
      original_password: 'password123',
    });
    expect(r.success).toBe(true);
    expect(await works(dave)).toBe(true);
    expect((await stolen.get('/api/user/self')).status).toBe(401);
  });

  it('marks the session cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    await loginAs(server, { username: 'frank', password: 'password123' });
    const login = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/user/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ username: 'frank', password: 'password123' }),
      });
    const https = (await login({ 'x-forwarded-proto': 'https' })).headers.getSetCookie()[0];
    expect(https).toMatch(/; Secure/i);
    expect(https).toMatch(/HttpOnly/i);
    expect(https).toMatch(/SameSite=Strict/i);
    const plain = (await login({})).headers.getSetCookie()[0];
    expect(plain).not.toMatch(/; Secure/i);
  });

  it('refuses cookies in the old format without a session id', async () => {
    const eve = await loginAs(server, { username: 'eve', password: 'password123' });
    const signed = decodeURIComponent(eve.cookie.slice('session='.length));
    const value = signed.slice(0, signed.lastIndexOf('.'));
    const legacy = value.slice(0, value.lastIndexOf('.'));
    const forged = copyOf(eve);
    forged.cookie = `session=${encodeURIComponent(server.app.signCookie(legacy))}`;
    expect((await forged.get('/api/user/self')).status).toBe(401);
  });
});

const pg = DATABASES.find((d) => d.name === 'postgres');
describe.skipIf(!pg?.available || !(await redisUp()))('a logout seen by every instance', () => {
  it('refuses the logged-out cookie on another instance sharing the database and Redis', async () => {
    const a = await startServer({ db: pg, env: { REDIS_CONN_STRING: REDIS_URL } });
    const ctxB = await createContext(
      loadConfig({
        SQL_DSN: a.ctx.config.sqlDsn,
        REDIS_CONN_STRING: REDIS_URL,
        SESSION_SECRET: 'test-session-secret',
        LOG_LEVEL: 'silent',
        NODE_TYPE: 'slave',
      }),
      pino({ level: 'silent' }),
    );
    const appB = await buildApp(ctxB);
    await appB.listen({ port: 0, host: '127.0.0.1' });
    const addr = appB.server.address();
    const urlB = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    try {
      const user = await loginAs(a, { username: 'roaming', password: 'password123' });
      const onB = copyOf(user, urlB);
      expect(await works(onB)).toBe(true);
      expect((await user.get('/api/user/logout')).success).toBe(true);
      await expect.poll(async () => (await onB.get('/api/user/self')).status, { timeout: 5000 }).toBe(401);

      const again = new ConsoleClient(a.url);
      expect((await again.login('roaming', 'password123')).success).toBe(true);
      const againOnB = copyOf(again, urlB);
      expect(await works(againOnB)).toBe(true);
      expect((await again.post('/api/user/logout_all')).success).toBe(true);
      await expect
        .poll(async () => (await againOnB.get('/api/user/self')).status, { timeout: 5000 })
        .toBe(401);
    } finally {
      await appB.close();
      await ctxB.close();
      await a.close();
    }
  });
});
