import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelStatus, Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * An admin who is not root cannot read channel keys, so may not send them elsewhere either: changing where a
 * channel's keys go (base URL, proxy, type, region or account fields) keeps the keys only when root does it or
 * the keys are entered again; an admin's copy of a channel carries no keys. The "listener" is an address an
 * admin controls: it records every header it is sent.
 */
const SECRETS = ['sk-root-secret-one', 'sk-root-secret-two'];

describe('channel keys: who may send them elsewhere', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let listener: Server;
  let listenerUrl = '';
  const heard: IncomingHttpHeaders[] = [];
  let root: ConsoleClient;
  let admin: ConsoleClient;
  let apiKey = '';

  beforeAll(async () => {
    mock = await startMockUpstream();
    listener = createServer((req, res) => {
      heard.push(req.headers);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'no', type: 'invalid_request_error' } }));
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    server = await startServer();
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    root = await loginAs(server, { username: 'root', role: Role.Root });
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, unlimited: true })).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    listener?.close();
  });

  const stored = (id: number) =>
    server.ctx.db.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function rootChannel(name: string): Promise<number> {
    const r = await root.post('/api/channel/', {
      mode: 'multi_key',
      type: 1,
      name,
      key: SECRETS.join('\n'),
      base_url: mock.url,
      models: 'gpt-4.1-nano-2025-04-14',
      setting: JSON.stringify({ multi_key_mode: 'polling' }),
    });
    expect(r.success, r.message).toBe(true);
    return r.data.ids[0];
  }

  const heardSecret = () => heard.some((h) => SECRETS.some((s) => JSON.stringify(h).includes(s)));

  it("an admin's copy carries no keys, so repointing it sends the listener none", async () => {
    const id = await rootChannel('shared-account');
    const copy = await admin.post(`/api/channel/copy/${id}`, {});
    expect(copy.success, copy.message).toBe(true);
    const copyId = copy.data.id;
    const row = await stored(copyId);
    expect(row.key).toBe('');
    expect(Number(row.status)).toBe(ChannelStatus.ManuallyDisabled);

    const repointed = await admin.put('/api/channel/', {
      id: copyId,
      base_url: listenerUrl,
      models: 'only-the-copy',
      status: 1,
    });
    expect(repointed.success, repointed.message).toBe(true);
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await client.chat.completions
      .create({ model: 'only-the-copy', messages: [{ role: 'user', content: 'hi' }] })
      .catch(() => null);
    expect(heardSecret()).toBe(false);

    // Root's copy keeps the keys.
    const rootCopy = await root.post(`/api/channel/copy/${id}`, {});
    expect((await stored(rootCopy.data.id)).key).toBe((await stored(id)).key);
  });

  it('refuses an admin who changes where the keys go without entering them, changing nothing', async () => {
    const id = await rootChannel('regional-account');
    const before = await stored(id);
    const changes: Array<[string, Record<string, unknown>]> = [
      ['base_url', { base_url: listenerUrl }],
      ['setting.proxy', { setting: JSON.stringify({ multi_key_mode: 'polling', proxy: listenerUrl }) }],
      ['type', { type: 8 }],
      ['other', { other: 'eastus' }],
      ['openai_organization', { openai_organization: 'org-elsewhere' }],
    ];
    for (const [field, change] of changes) {
      const r = await admin.put('/api/channel/', { id, ...change, name: 'renamed' });
      expect({ field, status: r.status, success: r.success }).toEqual({ field, status: 403, success: false });
      expect(r.message).toContain('keys entered again');
      expect(r.message).toContain(field);
    }
    expect(await stored(id)).toEqual(before);

    // Fields that do not send the keys anywhere else stay an admin's to change.
    const renamed = await admin.put('/api/channel/', { id, name: 'renamed', priority: 3, models: 'm-a,m-b' });
    expect(renamed.success, renamed.message).toBe(true);

    // Entering the keys again replaces the stored ones: the listener gets only what the admin typed.
    const retyped = await admin.put('/api/channel/', { id, base_url: listenerUrl, key: 'sk-admins-own' });
    expect(retyped.success, retyped.message).toBe(true);
    expect((await stored(id)).key).toBe('sk-admins-own');

    // Root may repoint and keep the keys.
    const other = await rootChannel('moved-by-root');
    const moved = await root.put('/api/channel/', { id: other, base_url: listenerUrl });
    expect(moved.success, moved.message).toBe(true);
    expect((await stored(other)).key).toBe(SECRETS.join('\n'));
    expect(heardSecret()).toBe(false);
  });
});
