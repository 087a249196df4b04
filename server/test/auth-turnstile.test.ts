import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnstileEndpoint } from '../src/modules/auth/turnstile.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Stands in for Cloudflare's siteverify: form-encoded secret/response/remoteip in, {success, error-codes} out. */
function fakeSiteverify(secret: string, seen: URLSearchParams[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      seen.push(form);
      const errors = [];
      if (form.get('secret') !== secret) errors.push('invalid-input-secret');
      if (form.get('response') !== 'good-token') errors.push('invalid-input-response');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ success: errors.length === 0, 'error-codes': errors, hostname: 'example.com' }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('Turnstile bot check', () => {
  let server: TestServer;
  let cf: Server;
  const seen: URLSearchParams[] = [];
  const original = turnstileEndpoint.url;

  beforeAll(async () => {
    server = await startServer();
    cf = await fakeSiteverify('turnstile-secret', seen);
    const addr = cf.address();
    turnstileEndpoint.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/turnstile/v0/siteverify`;
    await loginAs(server, { username: 'botless' });
    await server.ctx.options.set('TurnstileSiteKey', 'site-key');
    await server.ctx.options.set('TurnstileSecretKey', 'turnstile-secret');
    await server.ctx.options.set('TurnstileCheckEnabled', 'true');
  });
  afterAll(async () => {
    turnstileEndpoint.url = original;
    await server?.close();
    await new Promise((r) => cf?.close(r));
  });

  it('refuses login and registration without a token or with a bad one, and lets a verified one through', async () => {
    const c = new ConsoleClient(server.url);
    const none = await c.post('/api/user/login', { username: 'botless', password: 'password123' });
    expect(none).toMatchObject({
      status: 400,
      message: 'the bot check has not finished: retry in a few seconds',
    });
    const bad = await c.post('/api/user/login?turnstile=forged', {
      username: 'botless',
      password: 'password123',
    });
    expect(bad).toMatchObject({ status: 400, message: 'the bot check failed; refresh the page and retry' });
    expect(c.cookie).toBe('');
    const good = await c.post('/api/user/login?turnstile=good-token', {
      username: 'botless',
      password: 'password123',
    });
    expect(good.success).toBe(true);
    expect(seen.at(-1)?.get('secret')).toBe('turnstile-secret');
    expect(seen.at(-1)?.get('remoteip')).toMatch(/127\.0\.0\.1/);

    const fresh = new ConsoleClient(server.url);
    const reg = await fresh.post('/api/user/register', { username: 'robot', password: 'password123' });
    expect(reg.status).toBe(400);
    const names = (await server.ctx.db.db.selectFrom('users').select('username').execute()).map(
      (u) => u.username,
    );
    expect(names).not.toContain('robot');
    expect(
      (
        await c.post('/api/user/register?turnstile=good-token', {
          username: 'human',
          password: 'password123',
        })
      ).success,
    ).toBe(true);
  });

  it('does not ask a logged-in user again (binding an e-mail sends no widget token)', async () => {
    const c = new ConsoleClient(server.url);
    expect((await c.login('botless', 'password123')).status).toBe(400);
    const ok = await c.post('/api/user/login?turnstile=good-token', {
      username: 'botless',
      password: 'password123',
    });
    c.userId = ok.data.id;
    const anon = await new ConsoleClient(server.url).get('/api/verification?email=x@example.com');
    expect(anon.message).toBe('the bot check has not finished: retry in a few seconds');
    const inside = await c.get('/api/verification?email=x@example.com');
    expect(inside.message).toMatch(/SMTP/);
  });

  it('reports an unreachable verification service as a 502, not a pass', async () => {
    turnstileEndpoint.url = 'http://127.0.0.1:1/siteverify';
    const r = await new ConsoleClient(server.url).post('/api/user/login?turnstile=good-token', {
      username: 'botless',
      password: 'password123',
    });
    expect(r).toMatchObject({ status: 502, success: false });
  });
});
