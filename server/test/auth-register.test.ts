import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey } from '../src/infra/rate-limit.ts';
import { issueCode } from '../src/modules/auth/verification.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`registration on ${engine.name}`, () => {
    let server: TestServer;
    let anon: ConsoleClient;
    const users = async () =>
      (await server.ctx.db.db.selectFrom('users').select('username').execute()).map((u) => u.username);
    const row = (username: string) =>
      server.ctx.db.db
        .selectFrom('users')
        .selectAll()
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
    const logsOf = (id: number) =>
      server.ctx.db.db
        .selectFrom('logs')
        .select(['type', 'quota', 'content'])
        .where('user_id', '=', id)
        .orderBy('id')
        .execute();
    const register = (body: Record<string, unknown>) => anon.post('/api/user/register', body);

    beforeAll(async () => {
      server = await startServer({ db: engine });
      anon = new ConsoleClient(server.url);
    });
    afterAll(() => server?.close());

    it('registers a user who can then log in, with the new-user quota and its log row', async () => {
      await server.ctx.options.set('QuotaForNewUser', '2000');
      const r = await register({ username: 'newbie', password: 'newbie-pass', password2: 'newbie-pass' });
      expect(r).toMatchObject({ status: 200, success: true });
      const u = await row('newbie');
      expect(u).toMatchObject({
        display_name: 'newbie',
        role: 1,
        status: 1,
        group: 'default',
        quota: 2000,
        email: '',
      });
      expect(u.password).toMatch(/^\$2[aby]\$10\$/);
      expect(u.aff_code).toMatch(/^[A-Za-z0-9]{4}$/);
      expect(await logsOf(Number(u.id))).toEqual([
        { type: 4, quota: 2000, content: expect.stringContaining('New user bonus') },
      ]);
      const c = new ConsoleClient(server.url);
      expect((await c.login('newbie', 'newbie-pass')).success).toBe(true);
      await server.ctx.options.set('QuotaForNewUser', '0');
    });

    it('validates every field with a clear 400 and writes nothing', async () => {
      const before = await users();
      const cases: Array<[unknown, string]> = [
        [{ username: '', password: 'password123' }, 'username and password are required'],
        [{ username: 'someone', password: '' }, 'username and password are required'],
        [{ password: 'password123' }, 'username must be a string'],
        [{ username: 'abcdefghijklm', password: 'password123' }, 'username must be at most 12 characters'],
        [{ username: 'two words', password: 'password123' }, 'username must not contain spaces'],
        [{ username: 'shorty', password: 'short' }, 'password length must not be less than 8'],
        [{ username: 'longpw', password: 'x'.repeat(21) }, 'password must be at most 20 characters'],
        [
          { username: 'mismatch', password: 'password123', password2: 'password124' },
          'two passwords do not match',
        ],
        [{ username: 42, password: 'password123' }, 'username must be a string'],
        [{ username: 'typed', password: 12345678 }, 'password must be a string'],
        ['[]', 'request body must be a JSON object'],
      ];
      for (const [body, message] of cases) {
        const r = await register(body as Record<string, unknown>);
        expect(r.status, message).toBe(400);
        expect(r.message).toBe(message);
      }
      const malformed = await anon.post('/api/user/register', '{"username": "x",');
      expect(malformed).toMatchObject({ status: 400, message: 'invalid JSON in request body' });
      expect(await users()).toEqual(before);
    });

    it('keeps usernames unique, deleted accounts included, also under concurrent sign-ups', async () => {
      await register({ username: 'taken', password: 'password123' });
      const dup = await register({ username: 'taken', password: 'password456' });
      expect(dup).toMatchObject({
        status: 400,
        message: 'username already exists or belongs to a deleted account',
      });

      const results = await Promise.all(
        Array.from({ length: 12 }, () => register({ username: 'racer', password: 'password123' })),
      );
      expect(results.filter((r) => r.success)).toHaveLength(1);
      for (const r of results.filter((r) => !r.success)) {
        expect(r.status).toBe(400);
        expect(r.message).toBe('username already exists or belongs to a deleted account');
      }
      expect((await users()).filter((u) => u === 'racer')).toHaveLength(1);

      const gone = await loginAs(server, { username: 'gone' });
      expect((await gone.del('/api/user/self')).success).toBe(true);
      expect((await register({ username: 'gone', password: 'password123' })).status).toBe(400);
      // 15 sign-ups hash 15 passwords (bcrypt, ~0.1 s of CPU each): minutes on a machine shared with other runs.
    }, 120_000);

    it('follows the registration switches', async () => {
      await server.ctx.options.set('RegisterEnabled', 'false');
      const closed = await register({ username: 'closed1', password: 'password123' });
      expect(closed).toMatchObject({
        status: 403,
        message: 'new user registration has been closed by the administrator',
      });
      await server.ctx.options.set('RegisterEnabled', 'true');
      await server.ctx.options.set('PasswordRegisterEnabled', 'false');
      const noPw = await register({ username: 'closed2', password: 'password123' });
      expect(noPw.status).toBe(403);
      expect(noPw.message).toMatch(/registration with a password has been closed/);
      await server.ctx.options.set('PasswordRegisterEnabled', 'true');
      await server.ctx.options.set('PasswordLoginEnabled', 'false');
      const noLogin = await new ConsoleClient(server.url).login('newbie', 'newbie-pass');
      expect(noLogin).toMatchObject({
        status: 403,
        message: 'password login has been disabled by the administrator',
      });
      await server.ctx.options.set('PasswordLoginEnabled', 'true');
      expect(await users()).not.toContain('closed1');
      expect(await users()).not.toContain('closed2');
    });

    it('asks for the e-mail and a valid code when verification is on', async () => {
      await server.ctx.options.set('EmailVerificationEnabled', 'true');
      try {
        const missing = await register({ username: 'mailer', password: 'password123' });
        expect(missing.status).toBe(400);
        expect(missing.message).toBe(
          'e-mail verification is on: enter your e-mail address and the verification code',
        );
        const badMail = await register({
          username: 'mailer',
          password: 'password123',
          email: 'not-an-email',
          verification_code: '123456',
        });
        expect(badMail.message).toBe('invalid email address');
        const wrong = await register({
          username: 'mailer',
          password: 'password123',
          email: 'm@example.com',
          verification_code: '000000x',
        });
        expect(wrong.message).toBe('the verification code is wrong or has expired');
        expect(await users()).not.toContain('mailer');
        const code = await issueCode(server.ctx, 'email', 'm@example.com');
        const good = await register({
          username: 'mailer',
          password: 'password123',
          email: 'm@example.com',
          verification_code: code,
        });
        expect(good.success).toBe(true);
        expect((await row('mailer')).email).toBe('m@example.com');
        const c = new ConsoleClient(server.url);
        expect((await c.login('m@example.com', 'password123')).data.username).toBe('mailer');
      } finally {
        await server.ctx.options.set('EmailVerificationEnabled', 'false');
      }
    });

    it('rewards invitee and inviter through a referral code', async () => {
      const o = server.ctx.options;
      await o.set('QuotaForNewUser', '100');
      await o.set('QuotaForInvitee', '50');
      await o.set('QuotaForInviter', '1000');
      const inviter = await loginAs(server, { username: 'inviter' });
      const aff = await inviter.get('/api/user/aff');
      expect(aff.data).toMatch(/^[A-Za-z0-9]{4}$/);
      expect(
        (await register({ username: 'invitee', password: 'password123', aff_code: aff.data })).success,
      ).toBe(true);
      expect(
        (await register({ username: 'invitee2', password: 'password123', aff_code: aff.data })).success,
      ).toBe(true);
      expect(
        (await register({ username: 'stranger', password: 'password123', aff_code: 'zzzz-unknown' })).success,
      ).toBe(true);
      const invitee = await row('invitee');
      expect(Number(invitee.quota)).toBe(150);
      expect(Number(invitee.inviter_id)).toBe(inviter.userId);
      expect(Number((await row('stranger')).quota)).toBe(100);
      const self = (await inviter.get('/api/user/self')).data;
      expect(self).toMatchObject({ aff_count: 2, aff_quota: 2000, aff_history_quota: 2000, quota: 0 });
      const invLogs = await logsOf(inviter.userId);
      expect(invLogs.filter((l) => l.content.includes('Referral reward'))).toHaveLength(2);
      for (const k of ['QuotaForNewUser', 'QuotaForInvitee', 'QuotaForInviter']) await o.set(k, '0');
    });
  });
}

describe('rate limits on login, registration and /api', () => {
  it('trips the critical limiter per IP with a 429 envelope, shared by login and register', async () => {
    const server = await startServer({
      env: { CRITICAL_RATE_LIMIT: '4', CRITICAL_RATE_LIMIT_DURATION: '600' },
    });
    try {
      const c = new ConsoleClient(server.url);
      for (let i = 0; i < 3; i++) expect((await c.login('nobody', 'password123')).status).toBe(400);
      expect((await c.post('/api/user/register', { username: 'rl1', password: 'password123' })).success).toBe(
        true,
      );
      const tripped = await c.login('nobody', 'password123');
      expect(tripped).toMatchObject({
        status: 429,
        success: false,
        message: 'too many requests, please try again later',
      });
      const reg = await c.post('/api/user/register', { username: 'rl2', password: 'password123' });
      expect(reg.status).toBe(429);
      const names = (await server.ctx.db.db.selectFrom('users').select('username').execute()).map(
        (u) => u.username,
      );
      expect(names).toEqual(['rl1']);
      // Other routes are not in the critical bucket.
      expect((await c.get('/api/status')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('keys limits on the client address: X-Forwarded-For only counts from a trusted proxy', async () => {
    const spoofable = async (env: Record<string, string>) => {
      const server = await startServer({ env: { CRITICAL_RATE_LIMIT: '2', ...env } });
      try {
        const statuses = [];
        for (let i = 0; i < 4; i++) {
          const r = await new ConsoleClient(server.url).post(
            '/api/user/login',
            { username: 'x', password: 'password123' },
            {
              'x-forwarded-for': `203.0.113.${i + 1}`,
            },
          );
          statuses.push(r.status);
        }
        return statuses;
      } finally {
        await server.close();
      }
    };
    // Behind a proxy on this host (loopback is trusted by default) each forwarded client has its own window.
    expect(await spoofable({})).toEqual([400, 400, 400, 400]);
    // Exposed directly (no trusted proxy) the header is ignored, so it cannot be used to dodge the limit.
    expect(await spoofable({ TRUSTED_PROXIES: '' })).toEqual([400, 400, 429, 429]);
  });

  it('limits every /api call when GLOBAL_API_RATE_LIMIT is on', async () => {
    const server = await startServer({
      env: {
        GLOBAL_API_RATE_LIMIT_ENABLE: 'true',
        GLOBAL_API_RATE_LIMIT: '5',
        GLOBAL_API_RATE_LIMIT_DURATION: '600',
      },
    });
    try {
      const c = new ConsoleClient(server.url);
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await c.get('/api/status')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    } finally {
      await server.close();
    }
  });

  it('limits console page loads when GLOBAL_WEB_RATE_LIMIT is on, not static files, /api or the relay', async () => {
    const server = await startServer({
      env: {
        GLOBAL_WEB_RATE_LIMIT_ENABLE: 'true',
        GLOBAL_WEB_RATE_LIMIT: '3',
        GLOBAL_WEB_RATE_LIMIT_DURATION: '600',
      },
    });
    try {
      const pages = [];
      for (const path of ['/', '/login', '/token', '/personal'])
        pages.push((await fetch(server.url + path)).status);
      expect(pages.slice(0, 3)).not.toContain(429);
      expect(pages[3]).toBe(429);
      const limited = await fetch(`${server.url}/setup`);
      expect(limited.status).toBe(429);
      expect(await limited.text()).toBe('too many requests, please try again later');
      expect((await fetch(`${server.url}/assets/index.js`)).status).not.toBe(429);
      expect((await fetch(`${server.url}/api/status`)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/models`)).status).not.toBe(429);
    } finally {
      await server.close();
    }
  });

  it('shares the window across instances through Redis', async () => {
    const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const { Redis } = await import('ioredis');
    const probe = new Redis(redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await probe.connect();
    } catch {
      probe.disconnect();
      if (process.env.CI === 'true') throw new Error('Redis is required in CI');
      return;
    }
    // A client network and an account of this run alone: the Redis outlives runs, and every gateway on it
    // (other test files, other people's runs) counts logins from 127.0.0.1 in the same window. An IPv6 client
    // counts by its /64, so the random part is in the first four groups. Loopback is a trusted proxy by default.
    const hex = randomBytes(4).toString('hex');
    const client = `2001:db8:${hex.slice(0, 4)}:${hex.slice(4)}::1`;
    const account = `rl-${hex}`;
    const keys = [`modelgate:rl:critical:${clientKey(client)}`, `modelgate:rl:login-failures:${account}`];
    await probe.del(...keys);
    probe.disconnect();
    const env = {
      REDIS_CONN_STRING: redisUrl,
      CRITICAL_RATE_LIMIT: '3',
      CRITICAL_RATE_LIMIT_DURATION: '600',
    };
    const a = await startServer({ env });
    const b = await startServer({ env });
    try {
      const ca = new ConsoleClient(a.url);
      const cb = new ConsoleClient(b.url);
      ca.headers['x-forwarded-for'] = client;
      cb.headers['x-forwarded-for'] = client;
      expect((await ca.login(account, 'password123')).status).toBe(400);
      expect((await cb.login(account, 'password123')).status).toBe(400);
      expect((await ca.login(account, 'password123')).status).toBe(400);
      expect((await cb.login(account, 'password123')).status).toBe(429);
    } finally {
      await a.ctx.redis?.del(...keys);
      await a.close();
      await b.close();
    }
  });
});
