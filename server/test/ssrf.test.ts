import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOW_LINK_LOCAL_OPTION,
  ALLOW_PRIVATE_OPTION,
  addressKind,
  adminUrlPolicy,
  guardedFetch,
  setResolverForTests,
  userUrlPolicy,
} from '../src/infra/ssrf.ts';
import { oidcIdentity } from '../src/modules/auth/oauth/providers.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The SSRF guard on every outbound path. Names resolve through a table here, never through DNS, and every
 * name that stands for a refused address also lists 127.0.0.1 first: if the guard let it through, the request
 * would land on the loopback listener below (which counts connections), never on a real outside address.
 */
const NAMES: Record<string, string[]> = {
  'metadata.test': ['127.0.0.1', '169.254.169.254'],
  'v6-metadata.test': ['127.0.0.1', 'fd00:ec2::254'],
  'intranet.test': ['127.0.0.1', '10.0.0.5'],
  'loopback.test': ['127.0.0.1'],
  'public.test': ['203.0.113.10'],
};

describe('SSRF guard', () => {
  let server: TestServer;
  let root: ConsoleClient;
  let listener: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    setResolverForTests(async (host) => {
      const list = NAMES[host];
      if (!list) throw Object.assign(new Error(`no such test host ${host}`), { code: 'ENOTFOUND' });
      return list;
    });
    listener = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o', object: 'model' }] }));
    });
    listener.on('connection', () => connections++);
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as AddressInfo).port;
    server = await startServer({ env: { RELAY_TIMEOUT: '5' } });
    root = await loginAs(server, { username: 'root', role: Role.Root });
  });
  afterAll(async () => {
    setResolverForTests(null);
    await server?.close();
    listener?.close();
  });

  it('judges IPv6 forms that carry an IPv4 address by that address', () => {
    const cases: Array<[string, string]> = [
      ['::ffff:127.0.0.1', 'private'],
      ['::ffff:7f00:1', 'private'],
      ['::127.0.0.1', 'private'],
      ['::7f00:1', 'private'],
      ['::a9fe:a9fe', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['64:ff9b::7f00:1', 'private'],
      ['64:ff9b::169.254.169.254', 'link-local'],
      ['64:ff9b:1::a00:5', 'private'],
      ['2002:7f00:1::', 'private'],
      ['2002:a9fe:a9fe::1', 'link-local'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'private'], // Teredo
      ['fe80::1', 'link-local'],
      ['fd00:ec2::254', 'link-local'],
      ['100.100.100.200', 'link-local'],
      ['169.254.169.254', 'link-local'],
      ['10.1.2.3', 'private'],
      ['::1', 'private'],
      ['8.8.8.8', 'public'],
      ['2606:4700:4700::1111', 'public'],
      ['::ffff:8.8.8.8', 'public'],
    ];
    for (const [ip, kind] of cases) expect(addressKind(ip), ip).toBe(kind);
    // Numeric host spellings are normalised by URL parsing before the guard reads them.
    for (const host of ['2130706433', '0x7f.1', '017700000001', '127.1'])
      expect(new URL(`http://${host}/`).hostname, host).toBe('127.0.0.1');
  });

  it('refuses every internal form for a user URL before connecting', async () => {
    const before = connections;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
      `http://[64:ff9b::7f00:1]:${port}/`,
      `http://loopback.test:${port}/`,
      `http://intranet.test:${port}/`,
      `http://metadata.test:${port}/`,
    ]) {
      await expect(guardedFetch(url, { policy: userUrlPolicy(server.ctx.options) }), url).rejects.toThrow(
        /refused to fetch/,
      );
    }
    expect(connections).toBe(before);
    // A public name passes the check (the fetch itself is never made in this test).
  });

  it('refuses internal webhook addresses when the user saves them', async () => {
    const user = await loginAs(server, { username: 'hooker' });
    const setting = (webhook_url: string) =>
      user.put('/api/user/setting', {
        notify_type: 'webhook',
        quota_warning_threshold: 1000,
        webhook_url,
        webhook_secret: 's',
      });
    for (const url of [
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:a9fe:a9fe]/x',
      'https://metadata.test/x',
      'https://intranet.test/x',
    ]) {
      const r = await setting(url);
      expect(r.status, url).toBe(400);
      expect(r.message, url).toMatch(/refused to fetch/);
    }
    expect((await setting('https://public.test/hook')).success).toBe(true);
  });

  it('lets channels reach loopback and private hosts but never link-local or metadata ones', async () => {
    const userId = (await seedUser(server.ctx, { quota: 1_000_000 })).id;
    const token = await seedToken(server.ctx, { userId, unlimited: true });
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const ask = (model: string) =>
      client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    await seedChannel(server.ctx, {
      baseUrl: `http://metadata.test:${port}`,
      key: 'k',
      models: ['via-metadata'],
    });
    await seedChannel(server.ctx, { baseUrl: `http://[fe80::1]:${port}`, key: 'k', models: ['via-fe80'] });
    await seedChannel(server.ctx, {
      baseUrl: `http://v6-metadata.test:${port}`,
      key: 'k',
      models: ['via-v6meta'],
    });
    await server.ctx.options.set('SelfUseModeEnabled', 'true');

    const before = connections;
    for (const model of ['via-metadata', 'via-fe80', 'via-v6meta']) {
      const err = await ask(model).then(
        () => null,
        (e) => e,
      );
      expect(err?.status, model).toBe(502);
      expect(String(err?.message), model).toMatch(/link-local or cloud metadata/);
    }
    expect(connections).toBe(before);

    // Model lists, balances and channel tests of such a channel are refused the same way.
    const created = await root.post('/api/channel/', {
      type: 1,
      name: 'named metadata',
      key: 'k',
      base_url: `http://metadata.test:${port}`,
      models: 'gpt-4o',
    });
    expect(created.success, created.message).toBe(true);
    const id = created.data.ids[0];
    expect((await root.get(`/api/channel/fetch_models/${id}`)).message).toMatch(/refused/);
    const tested = await root.get(`/api/channel/test/${id}`);
    expect(tested.success).toBe(false);
    expect(tested.message).toMatch(/link-local or cloud metadata/);
    expect(connections).toBe(before);

    // Loopback is an administrator's local model server: allowed, with private targets off for users.
    await server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'false');
    const local = await root.post('/api/channel/fetch_models', {
      type: 1,
      base_url: `http://loopback.test:${port}`,
      key: 'k',
    });
    expect(local.success, local.message).toBe(true);
    expect(connections).toBeGreaterThan(before);

    // Root can allow link-local targets (for a model server on a link-local network).
    await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'true');
    expect((await root.get(`/api/channel/fetch_models/${id}`)).success).toBe(true);
    await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'false');
  });

  it('puts OIDC token calls through the guard', async () => {
    const o = server.ctx.options;
    await o.set('ServerAddress', 'https://gw.example');
    await o.set('oidc.client_id', 'id');
    await o.set('oidc.token_endpoint', `http://metadata.test:${port}/token`);
    await o.set('oidc.user_info_endpoint', `http://metadata.test:${port}/userinfo`);
    const before = connections;
    await expect(oidcIdentity(server.ctx, 'code')).rejects.toThrow(/link-local or cloud metadata/);
    expect(connections).toBe(before);
    expect(adminUrlPolicy(o).private).toBe(true);
  });

  it('says what happened when a channel host cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await root.post('/api/channel/fetch_models', {
      type: 1,
      base_url: `http://127.0.0.1:${deadPort}`,
      key: 'k',
    });
    expect(refused.status).toBe(502);
    expect(refused.message).toMatch(/connection refused/);
    const unknown = await root.post('/api/channel/fetch_models', {
      type: 1,
      base_url: 'http://nowhere.test',
      key: 'k',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.message).toMatch(/cannot resolve host/);
  });
});
