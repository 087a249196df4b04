import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/import/run.ts';
import { NEW_API, seedNewApi } from './support/import-seed-new-api.ts';
import { makeSource, type SourceDatabase } from './support/import-sources.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * `npm run import` against hostile rows: prototype keys in options, a look-alike of root's name, hidden
 * characters in names, channel URLs the console refuses. The import runs in one transaction: what it refuses
 * is listed with the row and the reason and skipped; an error it does not expect undoes everything.
 */
const CYRILLIC_ROOT = 'r\u043e\u043et'; // "rооt" with two Cyrillic o's
const CHANNEL = {
  type: 1,
  key: 'sk-upstream-hostile',
  status: 1,
  models: 'gpt-4o',
  group: 'default',
  base_url: '',
  setting: '',
};

async function hostileSource(upstream: string): Promise<SourceDatabase> {
  const src = await makeSource('new-api', 'sqlite');
  await seedNewApi(src, upstream);
  const user = (row: Record<string, unknown>) =>
    src.insert('users', { password: '', status: 1, quota: 0, group: 'default', ...row });
  await user({ id: 50, username: CYRILLIC_ROOT, role: 100, display_name: 'Root', aff_code: 'cy50' });
  await user({
    id: 51,
    username: 'mallory',
    role: 1,
    display_name: 'invoice\u202Eexe.pdf\u0000',
    aff_code: 'ml51',
  });
  await user({ id: 52, username: 'eve\u202Eadmin', role: 1, display_name: 'eve', aff_code: 'ev52' });
  const channel = (row: Record<string, unknown>) => src.insert('channels', { ...CHANNEL, ...row });
  await channel({ id: 60, name: 'metadata proxy', setting: '{"proxy":"http://169.254.169.254:80"}' });
  await channel({ id: 61, name: 'file proxy', setting: '{"proxy":"file:///etc/passwd"}' });
  await channel({ id: 62, name: 'mapped metadata', base_url: 'http://[::ffff:169.254.169.254]' });
  await channel({ id: 63, name: 'file base', base_url: 'file:///etc/passwd' });
  await src.insert('options', { key: '__proto__', value: '{"polluted":true}' });
  await src.insert('options', { key: 'constructor', value: 'x' });
  return src;
}

describe('import: hostile rows', () => {
  let mock: MockUpstream;
  const servers: TestServer[] = [];
  const sources: SourceDatabase[] = [];

  beforeAll(async () => {
    mock = await startMockUpstream();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(sources.map((s) => s.close()));
    await mock?.close();
  });

  async function fresh() {
    const server = await startServer();
    servers.push(server);
    const src = await hostileSource(mock.url);
    sources.push(src);
    return { server, src };
  }

  it('skips what it refuses with the row and the reason, and imports the rest', async () => {
    const { server, src } = await fresh();
    const report = (await runImport(server.ctx, { from: src.from })).toJSON().entities;
    const reason = (entity: keyof typeof report, id: string) =>
      report[entity].skipped.find((s: { id: string }) => s.id === id)?.reason ?? '';

    expect(reason('options', '__proto__')).toMatch(/prototype/);
    expect(reason('options', 'constructor')).toMatch(/prototype/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    expect(reason('users', '50')).toMatch(/looks like an administrator/);
    expect(reason('users', '52')).toMatch(/text-direction/);
    const db = server.ctx.db.db;
    const roots = await db.selectFrom('users').select(['id', 'username']).where('role', '=', 100).execute();
    expect(roots.map((r) => r.username)).toEqual(['root']);
    const mallory = await db.selectFrom('users').selectAll().where('id', '=', 51).executeTakeFirstOrThrow();
    expect(mallory.display_name).toBe('invoiceexe.pdf');

    expect(reason('channels', '60')).toMatch(/link-local or cloud metadata/);
    expect(reason('channels', '61')).toMatch(/setting.proxy refused/);
    expect(reason('channels', '62')).toMatch(/link-local or cloud metadata/);
    expect(reason('channels', '63')).toMatch(/not an http/);
    const ids = (await db.selectFrom('channels').select('id').execute()).map((c) => Number(c.id));
    for (const id of [60, 61, 62, 63]) expect(ids).not.toContain(id);
    expect(ids.length).toBeGreaterThan(0);
    // The rest came in: root can sign in with the old password.
    const login = await fetch(`${server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: NEW_API.rootPassword }),
    });
    expect(((await login.json()) as { success: boolean }).success).toBe(true);
  });

  it('writes nothing at all when a step fails after others have written', async () => {
    const { server, src } = await fresh();
    // The last step's table can be listed but not read: every row fails while it is read.
    await src.exec('DROP TABLE top_ups');
    await src.exec(
      "CREATE VIEW top_ups AS SELECT id, id AS user_id, 1 AS amount, 1.0 AS money, json_extract('{broken', '$') AS trade_no, '' AS payment_method, 0 AS create_time, 0 AS complete_time, 'success' AS status FROM users",
    );
    const db = server.ctx.db.db;
    const before = {
      users: await db.selectFrom('users').selectAll().execute(),
      channels: await db.selectFrom('channels').selectAll().execute(),
      tokens: await db.selectFrom('tokens').selectAll().execute(),
      options: await db.selectFrom('options').selectAll().execute(),
    };
    await expect(runImport(server.ctx, { from: src.from })).rejects.toThrow(/JSON/i);
    expect({
      users: await db.selectFrom('users').selectAll().execute(),
      channels: await db.selectFrom('channels').selectAll().execute(),
      tokens: await db.selectFrom('tokens').selectAll().execute(),
      options: await db.selectFrom('options').selectAll().execute(),
    }).toEqual(before);
  });
});
