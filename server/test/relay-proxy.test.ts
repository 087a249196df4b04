import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from './support/proxies.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** The channel setting `proxy`: upstream calls of that channel go through an HTTP (CONNECT) or SOCKS5 proxy. */
describe('relay: channel proxy setting', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let httpProxy: TestProxy;
  let socksProxy: TestProxy;
  let userId: number;

  beforeAll(async () => {
    mock = await startMockUpstream();
    httpProxy = await startHttpProxy();
    socksProxy = await startSocks5Proxy();
    server = await startServer();
    userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([mock?.close(), httpProxy?.close(), socksProxy?.close()]);
  });

  it('sends the channel calls through its HTTP or SOCKS5 proxy, plain and streamed', async () => {
    const mockHost = new URL(mock.url).host;
    for (const [model, proxy] of [
      ['gpt-4.1-nano-2025-04-14', httpProxy],
      ['deepseek-chat', socksProxy],
    ] as const) {
      await seedChannel(server.ctx, {
        baseUrl: mock.url,
        key: 'sk-good',
        models: [model],
        setting: { proxy: proxy.url },
      });
      const { apiKey } = await seedToken(server.ctx, { userId, remain: 10_000_000 });
      const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const answer = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
      let streamed = '';
      for await (const c of await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }))
        streamed += c.choices[0]?.delta?.content ?? '';
      expect(streamed.length).toBeGreaterThan(0);
      expect(proxy.targets.length).toBeGreaterThan(0);
      expect(proxy.targets.every((t) => t === mockHost)).toBe(true);
    }
  });

  it('refuses a channel whose proxy is not an http, https or socks5 URL, writing nothing', async () => {
    const admin = new ConsoleClient(server.url);
    await seedUser(server.ctx, {
      quota: 0,
      role: 100,
      username: 'root-proxy',
      password: 'root-pass-1',
    });
    expect((await admin.login('root-proxy', 'root-pass-1')).success).toBe(true);
    const before = await server.ctx.db.db.selectFrom('channels').select('id').execute();
    for (const proxy of ['ftp://127.0.0.1:21', 'not a url', 42]) {
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: 'proxied',
        key: 'sk-x',
        models: 'm1',
        setting: JSON.stringify({ proxy }),
      });
      expect({ proxy, status: r.status, success: r.success }).toEqual({ proxy, status: 400, success: false });
      expect(r.message).toContain('setting.proxy');
    }
    const ok = await admin.post('/api/channel/', {
      type: 1,
      name: 'proxied',
      key: 'sk-x',
      models: 'm1',
      setting: JSON.stringify({ proxy: 'socks5://user:pass@127.0.0.1:1080' }),
    });
    expect(ok.success, ok.message).toBe(true);
    const after = await server.ctx.db.db.selectFrom('channels').select('id').execute();
    expect(after.length).toBe(before.length + 1);
  });
});
