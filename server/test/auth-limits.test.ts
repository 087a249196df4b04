import proxyAddr from '@fastify/proxy-addr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { clientKey, LOGIN_FAILURES_PER_ACCOUNT } from '../src/infra/rate-limit.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

const loginFrom = (server: TestServer, ip: string, username: string, password: string) =>
  new ConsoleClient(server.url).post('/api/user/login', { username, password }, { 'x-forwarded-for': ip });

describe('login limits per account and per client network', () => {
  let server: TestServer;

  beforeAll(async () => {
    // A high per-IP limit, so only the per-account limit can trip; loopback (the test client) is the proxy.
    server = await startServer({ env: { CRITICAL_RATE_LIMIT: '1000' } });
    await loginAs(server, { username: 'victim', password: 'right-password-1' });
    await loginAs(server, { username: 'bystander', password: 'right-password-2' });
  });
  afterAll(() => server?.close());

  it('locks password login for an account after repeated failures from many addresses', async () => {
    const { count } = LOGIN_FAILURES_PER_ACCOUNT;
    for (let i = 0; i < count; i++) {
      const r = await loginFrom(server, `198.51.100.${i + 1}`, 'victim', `guess-${i}`);
      expect(r.status, `guess ${i}`).toBe(400);
    }
    // The right password, from an address never seen before, is refused too while the lock lasts.
    const locked = await loginFrom(server, '203.0.113.200', 'Victim', 'right-password-1');
    expect(locked.status).toBe(429);
    expect(locked.message).toMatch(/too many failed logins for this account/);
    // Another account is not affected.
    expect((await loginFrom(server, '198.51.100.1', 'bystander', 'right-password-2')).success).toBe(true);
  });

  it('counts IPv6 clients per /64 network', async () => {
    expect(clientKey('2001:db8:1:2::a')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('::ffff:203.0.113.9');

    const limited = await startServer({ env: { CRITICAL_RATE_LIMIT: '2' } });
    try {
      const statuses = [];
      for (const ip of ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:db8:1:2:abcd::1', '2001:db8:1:3::1'])
        statuses.push((await loginFrom(limited, ip, 'nobody', 'password123')).status);
      // Three addresses of one /64 share a window of two; the next /64 has its own.
      expect(statuses).toEqual([400, 400, 429, 400]);
    } finally {
      await limited.close();
    }
  });

  it('trusts X-Forwarded-For from loopback only by default, never from a private network peer', async () => {
    const trusted = loadConfig({}).trustedProxies;
    expect(trusted).toEqual(['loopback']);
    const trust = proxyAddr.compile(trusted);
    for (const peer of ['10.1.2.3', '172.16.0.9', '192.168.1.20', 'fd00::5', 'fe80::1'])
      expect(trust(peer, 0), peer).toBe(false);
    expect(trust('127.0.0.1', 0)).toBe(true);

    // A peer outside the trusted list (here loopback, with only a private network trusted) cannot spread
    // its requests over forged client addresses.
    const exposed = await startServer({ env: { CRITICAL_RATE_LIMIT: '2', TRUSTED_PROXIES: '10.0.0.0/8' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await loginFrom(exposed, `10.0.0.${i + 1}`, 'nobody', 'password123')).status);
      expect(statuses).toEqual([400, 400, 429, 429]);
    } finally {
      await exposed.close();
    }
  });
});
