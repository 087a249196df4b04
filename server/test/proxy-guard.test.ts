import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_LINK_LOCAL_OPTION, setResolverForTests } from '../src/infra/ssrf.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from './support/proxies.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * A channel's `setting.proxy` is held to the rule of its base URL: link-local and cloud metadata addresses are
 * refused when the channel is saved, and again when a call would go through the proxy (address literals before
 * connecting, names at connect time). Names resolve through a table: `metadata.test` lists 127.0.0.1 first, so
 * a proxy the guard let through would be the test proxy on loopback, which records every connection.
 */
const BAD_PROXIES = [
  'http://169.254.169.254:80',
  'socks5://169.254.169.254:1080',
  'http://[::ffff:169.254.169.254]:80',
  'socks5://[::ffff:169.254.169.254]:1080',
  'http://100.100.100.200:80',
  'http://[fe80::1]:8080',
  'socks5://0xa9fea9fe:1080',
];

describe('channel proxy: the SSRF guard', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let httpProxy: TestProxy;
  let socksProxy: TestProxy;
  let root: ConsoleClient;
  let admin: ConsoleClient;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startMockUpstream();
    httpProxy = await startHttpProxy();
    socksProxy = await startSocks5Proxy();
    setResolverForTests(async (host) => {
      if (host === 'metadata.test') return ['127.0.0.1', '169.254.169.254'];
      if (host === 'localhost') return ['127.0.0.1'];
      throw Object.assign(new Error(`no such test host ${host}`), { code: 'ENOTFOUND' });
    });
    server = await startServer({ env: { RELAY_TIMEOUT: '5' } });
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    root = await loginAs(server, { username: 'root', role: Role.Root });
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    const { apiKey } = await seedToken(server.ctx, { userId, unlimited: true });
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    setResolverForTests(null);
    await server?.close();
    await Promise.all([mock?.close(), httpProxy?.close(), socksProxy?.close()]);
  });

  const channelCount = async () =>
    (await server.ctx.db.db.selectFrom('channels').select('id').execute()).length;

  it('refuses a link-local or metadata proxy when a channel is created or edited, writing nothing', async () => {
    const before = await channelCount();
    for (const proxy of BAD_PROXIES) {
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: 'proxied',
        key: 'sk-x',
        base_url: mock.url,
        models: 'm1',
        setting: JSON.stringify({ proxy }),
      });
      expect({ proxy, status: r.status, success: r.success }).toEqual({ proxy, status: 400, success: false });
      expect(r.message).toMatch(/link-local or cloud metadata/);
    }
    expect(await channelCount()).toBe(before);

    const made = await root.post('/api/channel/', {
      type: 1,
      name: 'proxied',
      key: 'sk-x',
      base_url: mock.url,
      models: 'm1',
      setting: JSON.stringify({ proxy: httpProxy.url }),
    });
    expect(made.success, made.message).toBe(true);
    const id = made.data.ids[0];
    for (const proxy of BAD_PROXIES) {
      const r = await root.put('/api/channel/', { id, setting: JSON.stringify({ proxy }) });
      expect({ proxy, status: r.status }).toEqual({ proxy, status: 400 });
    }
    const kept = await root.get(`/api/channel/${id}`);
    expect(JSON.parse(kept.data.setting).proxy).toBe(httpProxy.url);

    // Root may allow link-local targets, proxies included.
    await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'true');
    const allowed = await root.put('/api/channel/', {
      id,
      setting: JSON.stringify({ proxy: BAD_PROXIES[0] }),
    });
    expect(allowed.success, allowed.message).toBe(true);
    await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'false');
  });

  it('refuses calls through such a proxy on the relay and in channel tests, connecting nowhere', async () => {
    const proxies = [
      ...BAD_PROXIES,
      `http://metadata.test:${new URL(httpProxy.url).port}`,
      `socks5://metadata.test:${new URL(socksProxy.url).port}`,
    ];
    const seeded: number[] = [];
    for (const [i, proxy] of proxies.entries())
      seeded.push(
        (
          await seedChannel(server.ctx, {
            baseUrl: mock.url,
            key: 'sk-good',
            models: [`via-proxy-${i}`],
            setting: { proxy },
            autoBan: false,
          })
        ).id,
      );
    const targets = httpProxy.targets.length + socksProxy.targets.length;
    for (const [i, proxy] of proxies.entries()) {
      const err = await client.chat.completions
        .create({ model: `via-proxy-${i}`, messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => null,
          (e) => e,
        );
      expect({ proxy, status: err?.status }).toEqual({ proxy, status: 502 });
      expect(err?.code, proxy).toBe('upstream_address_refused');
      expect(String(err?.message)).not.toContain('169.254');
      const tested = await admin.get(`/api/channel/test/${seeded[i]}`);
      expect(tested.success, proxy).toBe(false);
      expect(tested.message, proxy).toMatch(/link-local or cloud metadata/);
    }
    expect(httpProxy.targets.length + socksProxy.targets.length).toBe(targets);

    // A proxy on an allowed address still carries the calls.
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: ['gpt-4.1-nano-2025-04-14'],
      setting: { proxy: `socks5://localhost:${new URL(socksProxy.url).port}` },
    });
    const ok = await client.chat.completions.create({
      model: 'gpt-4.1-nano-2025-04-14',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(socksProxy.targets.at(-1)).toBe(new URL(mock.url).host);
  });

  it('sends model lists and token exchanges through the proxy, and refuses a metadata proxy there too', async () => {
    const mockHost = new URL(mock.url).host;
    const named = `http://metadata.test:${new URL(httpProxy.url).port}`;
    const good = `http://localhost:${new URL(httpProxy.url).port}`;
    const list = (proxy: string) =>
      admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: mock.url,
        key: 'sk-good',
        setting: JSON.stringify({ proxy }),
      });
    let targets = httpProxy.targets.length;
    await list(good); // this mock has no model list: what counts is that the call went through the proxy
    expect(httpProxy.targets.slice(targets)).toEqual([mockHost]);

    targets = httpProxy.targets.length;
    for (const proxy of [named, BAD_PROXIES[0], BAD_PROXIES[1]]) {
      const refused = await list(proxy);
      expect({ proxy, success: refused.success }).toEqual({ proxy, success: false });
      expect(refused.message).toMatch(/link-local or cloud metadata/);
    }

    // Wenxin exchanges its key at the channel's address: through the proxy, never through a refused one.
    const wenxin = (proxy: string) =>
      seedChannel(server.ctx, {
        type: 15,
        baseUrl: mock.url,
        key: 'ak-x|sk-x',
        models: ['ernie-via-proxy'],
        setting: { proxy },
        autoBan: false,
      });
    const viaNamed = await wenxin(named);
    const tested = await admin.get(`/api/channel/test/${viaNamed.id}`);
    expect(tested.message).toMatch(/link-local or cloud metadata/);
    expect(httpProxy.targets.length).toBe(targets);
    const viaGood = await wenxin(httpProxy.url); // another proxy URL: a connection of its own
    await admin.get(`/api/channel/test/${viaGood.id}`); // this mock has no token endpoint; the route counts
    expect(httpProxy.targets.slice(targets)).toEqual([mockHost]);
  });
});
