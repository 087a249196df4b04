import { ChannelStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolverForTests } from '../src/infra/ssrf.ts';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from './support/proxies.ts';
import { dial, isConn } from './support/realtime-client.ts';
import { expectedQuota, priceRealtime, realtimeRelay } from './support/realtime-relay.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * How a realtime session reaches a channel: retries over channels before the client's upgrade completes, the
 * SSRF guard and the channel's proxy, the model request rate limit, the group's routing mode, and the gateway
 * shutting down under open sessions.
 */
describe('relay: OpenAI Realtime over WebSocket', () => {
  const relay = realtimeRelay(startServer);

  let httpProxy: TestProxy;
  let socksProxy: TestProxy;
  beforeAll(async () => {
    httpProxy = await startHttpProxy();
    socksProxy = await startSocks5Proxy();
  });
  afterAll(async () => {
    await Promise.all([httpProxy?.close(), socksProxy?.close()]);
  });

  it('retries another channel before the upgrade completes, disabling the channel whose key was refused', async () => {
    await relay.server.ctx.options.set('RetryTimes', '1');
    await relay.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const revoked = await seedChannel(relay.server.ctx, {
      baseUrl: relay.mock.url,
      key: 'sk-revoked-key',
      models: ['gpt-realtime-mini'],
      priority: 10,
    });
    const good = await seedChannel(relay.server.ctx, {
      baseUrl: relay.mock.url,
      key: 'sk-upstream-mini',
      models: ['gpt-realtime-mini'],
    });
    const { userId, apiKey } = await relay.newCaller(1_000_000);
    const before = relay.mock.handshakes.length;
    const conn = await relay.session('gpt-realtime-mini', apiKey);
    expect(relay.mock.handshakes.slice(before).map((h) => [h.headers.authorization, h.status])).toEqual([
      ['Bearer sk-revoked-key', 401],
      ['Bearer sk-upstream-mini', 101],
    ]);
    conn.send({ type: 'response.create', response: { output_modalities: ['text'] } });
    const done = await conn.next('response.done');
    conn.ws.close();
    await expect.poll(async () => (await relay.logRows(userId)).length).toBe(1);
    const [row] = await relay.logRows(userId);
    expect(row.quota).toBe(expectedQuota('gpt-realtime-mini', done.response.usage));
    expect(JSON.parse(String(row.other)).admin_info.use_channel).toEqual([
      String(revoked.id),
      String(good.id),
    ]);
    await expect
      .poll(
        async () =>
          (
            await relay.server.ctx.db.db
              .selectFrom('channels')
              .select('status')
              .where('id', '=', revoked.id)
              .executeTakeFirstOrThrow()
          ).status,
      )
      .toBe(ChannelStatus.AutoDisabled);
    await relay.server.ctx.options.set('RetryTimes', '0');
  });

  it('reaches channels through the SSRF guard and the channel proxy', async () => {
    await seedChannel(relay.server.ctx, {
      baseUrl: 'http://169.254.169.254',
      key: 'sk-x',
      models: ['rt-ssrf'],
    });
    await seedChannel(relay.server.ctx, {
      baseUrl: relay.mock.url,
      key: 'sk-upstream-openai',
      models: ['rt-proxy'],
      setting: { proxy: httpProxy.url },
    });
    await seedChannel(relay.server.ctx, {
      baseUrl: relay.mock.url,
      key: 'sk-upstream-openai',
      models: ['rt-socks'],
      setting: { proxy: socksProxy.url },
    });
    const { apiKey } = await relay.newCaller(10_000_000);
    const auth = { authorization: `Bearer ${apiKey}` };

    const refused = await dial(relay.realtimeUrl('rt-ssrf'), { headers: auth });
    if (!isConn(refused)) throw new Error('refused before the upgrade');
    expect(await refused.closed).toEqual({ code: 1011, reason: 'upstream_error.upstream_address_refused' });
    expect(refused.events[0].error.code).toBe('upstream_address_refused');

    const before = httpProxy.targets.length;
    const proxied = await dial(relay.realtimeUrl('rt-proxy'), { headers: auth });
    if (!isConn(proxied)) throw new Error(`refused: ${JSON.stringify(proxied)}`);
    await proxied.next('session.created');
    expect(httpProxy.targets.slice(before)).toEqual([new URL(relay.mock.url).host]);
    proxied.ws.close();

    const socks = await dial(relay.realtimeUrl('rt-socks'), { headers: auth });
    if (!isConn(socks)) throw new Error('refused before the upgrade');
    expect((await socks.closed).reason).toBe('upstream_error.channel_proxy_unsupported');

    // The proxy's host is held to the same rule: a metadata literal, or a name that resolves to one.
    const proxyPort = new URL(httpProxy.url).port;
    setResolverForTests(async (host) => (host === 'metadata.test' ? ['127.0.0.1', '169.254.169.254'] : []));
    try {
      for (const [model, proxy] of [
        ['rt-proxy-meta', 'http://[::ffff:169.254.169.254]:80'],
        ['rt-proxy-named', `http://metadata.test:${proxyPort}`],
      ]) {
        await seedChannel(relay.server.ctx, {
          baseUrl: relay.mock.url,
          key: 'sk-x',
          models: [model],
          setting: { proxy },
        });
        const targets = httpProxy.targets.length;
        const conn = await dial(relay.realtimeUrl(model), { headers: auth });
        if (!isConn(conn)) throw new Error('refused before the upgrade');
        expect(await conn.closed, proxy).toEqual({
          code: 1011,
          reason: 'upstream_error.upstream_address_refused',
        });
        expect(httpProxy.targets.length).toBe(targets);
      }
    } finally {
      setResolverForTests(null);
    }
  });

  it('counts sessions in the model request rate limit', async () => {
    const o = relay.server.ctx.options;
    await o.set('ModelRequestRateLimitEnabled', 'true');
    await o.set('ModelRequestRateLimitDurationMinutes', '1');
    await o.set('ModelRequestRateLimitCount', '1');
    try {
      const { apiKey } = await relay.newCaller(1_000_000);
      const auth = { authorization: `Bearer ${apiKey}` };
      const first = await dial(relay.realtimeUrl('gpt-realtime'), { headers: auth });
      if (!isConn(first)) throw new Error('refused');
      await first.next('session.created');
      const second = await dial(relay.realtimeUrl('gpt-realtime'), { headers: auth });
      if (!isConn(second)) throw new Error('refused before the upgrade');
      expect(await second.closed).toEqual({
        code: 4000,
        reason: 'rate_limit_error.model_request_rate_limited',
      });
      expect(second.events[0].error.type).toBe('rate_limit_error');
      first.ws.close();
      await first.closed;
    } finally {
      await o.set('ModelRequestRateLimitEnabled', 'false');
    }
  });

  it("picks channels by the group's routing mode, like the other relays", async () => {
    await relay.server.ctx.options.set('GroupRoutingMode', JSON.stringify({ 'rt-turns': 'round_robin' }));
    try {
      for (const key of ['sk-upstream-openai', 'sk-upstream-mini'])
        await seedChannel(relay.server.ctx, {
          baseUrl: relay.mock.url,
          key,
          models: ['gpt-realtime'],
          group: 'rt-turns',
        });
      const user = await seedUser(relay.server.ctx, { quota: 1_000_000, group: 'rt-turns' });
      const { apiKey } = await seedToken(relay.server.ctx, { userId: user.id, unlimited: true });
      const before = relay.mock.handshakes.length;
      for (let i = 0; i < 4; i++) {
        const conn = await relay.session('gpt-realtime', apiKey);
        conn.ws.close();
        await conn.closed;
      }
      const keys = relay.mock.handshakes.slice(before).map((h) => h.headers.authorization);
      expect(keys).toHaveLength(4);
      // In turn: never the same channel twice in a row, each channel twice.
      for (let i = 1; i < 4; i++) expect(keys[i]).not.toBe(keys[i - 1]);
      expect(new Set(keys).size).toBe(2);
    } finally {
      await relay.server.ctx.options.set('GroupRoutingMode', '{}');
    }
  });

  it('ends open sessions with 1001 when the gateway shuts down, billing what ran', async () => {
    const other = await startServer();
    try {
      await priceRealtime(other.ctx, ['ModelRatio', 'CompletionRatio']);
      await seedChannel(other.ctx, {
        baseUrl: relay.mock.url,
        key: 'sk-upstream-openai',
        models: ['gpt-realtime'],
      });
      const user = await seedUser(other.ctx, { quota: 1_000_000 });
      const tk = await seedToken(other.ctx, { userId: user.id, unlimited: true });
      const conn = await dial(`${other.url.replace('http://', 'ws://')}/v1/realtime?model=gpt-realtime`, {
        headers: { authorization: `Bearer ${tk.apiKey}` },
      });
      if (!isConn(conn)) throw new Error('refused');
      await conn.next('session.created');
      conn.send({ type: 'response.create', response: { output_modalities: ['text'] } });
      await conn.next('response.done');
      await other.app.close();
      expect(await conn.closed).toEqual({ code: 1001, reason: 'the gateway is shutting down' });
      await flushLedger(other.ctx);
      const row = await other.ctx.db.db
        .selectFrom('users')
        .select(['used_quota'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.used_quota)).toBeGreaterThan(0);
    } finally {
      await other.close().catch(() => {});
    }
  });
});
