import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNewer } from '../src/modules/status/release.ts';
import { VERSION } from '../src/modules/status/version.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockRelease, startMockRelease } from './support/mock-release.ts';
import { startServer, type TestServer } from './support/server.ts';

/** The version check (spec 000, other settings): the latest release read from VERSION_CHECK_URL, admins only. */
describe('GET /api/status/release', () => {
  let server: TestServer;
  let release: MockRelease;
  let admin: ConsoleClient;
  let user: ConsoleClient;

  beforeAll(async () => {
    release = await startMockRelease({ tag_name: 'v99.1.0', body: '## Changes\n- faster relay' });
    server = await startServer({ env: { VERSION_CHECK_URL: release.url } });
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    user = await loginAs(server, { username: 'user' });
  });
  afterAll(async () => {
    await server?.close();
    await release?.close();
  });

  it('tells an admin the latest release, its notes and that it is newer than the running version', async () => {
    const r = await admin.get('/api/status/release');
    expect(r.success, r.message).toBe(true);
    expect(r.data).toMatchObject({
      current: VERSION,
      latest: 'v99.1.0',
      notes: '## Changes\n- faster relay',
      url: 'https://example.com/releases/tag/v99.1.0',
      newer: true,
    });
    expect(release.hits).toBe(1);
    expect((await new ConsoleClient(server.url).get('/api/status')).data.version_check).toBe(true);
  });

  it('refuses users who are not admins, and nobody logged out reaches the release server', async () => {
    const before = release.hits;
    expect((await user.get('/api/status/release')).status).toBe(403);
    const anon = new ConsoleClient(server.url);
    expect((await anon.get('/api/status/release')).status).toBe(401);
    expect(release.hits).toBe(before);
  });

  it('compares versions by number, not as text', () => {
    expect(isNewer('v0.10.0', 'v0.9.9')).toBe(true);
    expect(isNewer('v0.1.0', 'v0.1.0')).toBe(false);
    expect(isNewer('0.1.2', 'v0.1.10')).toBe(false);
  });

  it('answers clearly when the release server cannot be reached', async () => {
    await release.close();
    const r = await admin.get('/api/status/release');
    expect(r.success).toBe(false);
    expect(r.status).toBe(502);
    expect(r.message).toMatch(/could not reach the release server/);
  });

  it('says the check is off when no URL is configured', async () => {
    const off = await startServer();
    try {
      const a = await loginAs(off, { username: 'admin', role: Role.Admin });
      const r = await a.get('/api/status/release');
      expect(r.success).toBe(false);
      expect(r.message).toMatch(/VERSION_CHECK_URL is not set/);
      expect((await a.get('/api/status')).data.version_check).toBe(false);
    } finally {
      await off.close();
    }
  });
});
