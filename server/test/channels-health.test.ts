import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ALLOW_LINK_LOCAL_OPTION, ALLOW_PRIVATE_OPTION, isPrivateAddress } from '../src/infra/ssrf.ts';
import { disableChannel, enableChannel } from '../src/modules/channels/health.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { fixtureText } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

interface Seen {
  method: string;
  url: string;
  auth: string;
  body: any;
}

/** An OpenAI-compatible upstream: the key decides how it behaves. */
function startUpstream(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const auth = String(req.headers.authorization ?? '');
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      auth,
      body: raw ? JSON.parse(raw) : undefined,
    });
    const key = auth.replace(/^Bearer /, '');
    const json = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    const invalidKey = JSON.stringify({
      error: {
        // Like OpenAI, the 401 names the key it was given.
        message: `Incorrect API key provided: ${key}`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    if (req.url === '/v1/models') {
      if (key !== 'good-key') return json(401, invalidKey);
      return json(
        200,
        JSON.stringify({
          object: 'list',
          data: ['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small'].map((id) => ({
            id,
            object: 'model',
            created: 1700000000,
            owned_by: 'openai',
          })),
        }),
      );
    }
    if (req.url === '/v1/chat/completions') {
      if (key === 'bad-key') return json(401, invalidKey);
      if (key === 'quota-key')
        return json(429, fixtureText('openai/responses/error-insufficient-quota.json'));
      if (key === 'flaky-key')
        return json(
          500,
          JSON.stringify({
            error: { message: 'The server had an error', type: 'server_error', param: null, code: null },
          }),
        );
      if (key === 'slow-key') await new Promise((r) => setTimeout(r, 400));
      return json(200, fixtureText('openai/chat/text.json'));
    }
    if (req.url === '/dashboard/billing/credit_grants' && key === 'grant-key') {
      return json(
        200,
        JSON.stringify({
          object: 'credit_summary',
          total_granted: 20,
          total_used: 7.5,
          total_available: 12.5,
        }),
      );
    }
    if (req.url === '/v1/dashboard/billing/subscription')
      return json(200, JSON.stringify({ object: 'billing_subscription', hard_limit_usd: 120 }));
    if (req.url?.startsWith('/v1/dashboard/billing/usage'))
      return json(200, JSON.stringify({ object: 'list', total_usage: 2550 }));
    if (req.url === '/user/balance') {
      return json(
        200,
        JSON.stringify({
          is_available: true,
          balance_infos: [
            {
              currency: 'CNY',
              total_balance: '110.00',
              granted_balance: '10.00',
              topped_up_balance: '100.00',
            },
          ],
        }),
      );
    }
    json(404, JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server }),
    ),
  );
}

describe('channel health, tests, balances and upstream model lists', () => {
  let server: TestServer;
  let admin: ConsoleClient;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;

  beforeAll(async () => {
    upstream = await startUpstream();
    server = await startServer();
    admin = await loginAs(server, { username: 'root', role: Role.Root });
  });
  afterAll(async () => {
    await server?.close();
    upstream?.server.close();
  });
  beforeEach(async () => {
    upstream.seen.length = 0;
    await server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'true');
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await server.ctx.options.set('AutomaticEnableChannelEnabled', 'true');
    await server.ctx.options.set('ChannelDisableThreshold', '5');
  });

  let made = 0;
  const channel = async (key: string, extra: Record<string, unknown> = {}) => {
    const r = await admin.post('/api/channel/', {
      type: 1,
      name: `upstream ${++made}`,
      key,
      base_url: upstream.url,
      models: 'gpt-4.1-nano,gpt-4o',
      ...extra,
    });
    expect(r.success, r.message).toBe(true);
    return r.data.ids[0] as number;
  };
  const row = async (id: number) => (await admin.get(`/api/channel/${id}`)).data;
  const enabledAbilities = async (id: number) =>
    (
      await server.ctx.db.db.selectFrom('abilities').select('enabled').where('channel_id', '=', id).execute()
    ).map((a) => Number(a.enabled));

  describe('SSRF guard', () => {
    it('classifies private, loopback, link-local and metadata addresses', () => {
      for (const ip of [
        '127.0.0.1',
        '10.1.2.3',
        '172.20.0.1',
        '192.168.0.1',
        '169.254.169.254',
        '100.100.100.200',
        '0.0.0.0',
        '::1',
        '::',
        'fd00:ec2::254',
        'fe80::1',
        '::ffff:127.0.0.1',
      ]) {
        expect(isPrivateAddress(ip), ip).toBe(true);
      }
      for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
        expect(isPrivateAddress(ip), ip).toBe(false);
    });

    it('lets fetch_models reach a loopback channel but refuses link-local and metadata addresses', async () => {
      // A channel's base URL is the administrator's: local model servers are common, so loopback works even
      // with private targets off for user URLs.
      await server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'false');
      const local = await admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: upstream.url,
        key: 'good-key',
      });
      expect(local.success, local.message).toBe(true);
      upstream.seen.length = 0;
      for (const base of [
        'http://169.254.169.254',
        'http://[fe80::1]:8080',
        'http://[fd00:ec2::254]',
        'http://100.100.100.200',
        'http://[::ffff:a9fe:a9fe]',
      ]) {
        const r = await admin.post('/api/channel/fetch_models', { type: 1, base_url: base, key: 'good-key' });
        expect(r.status, base).toBe(400);
        expect(r.message, base).toMatch(/refused .*link-local or cloud metadata/);
      }
      // Saving such a channel is refused too, unless root allows link-local targets; a channel saved while
      // it was allowed is refused again once the option is off.
      const saved = await admin.post('/api/channel/', {
        type: 1,
        name: 'metadata',
        key: 'good-key',
        base_url: 'http://169.254.169.254',
        models: 'gpt-4o',
      });
      expect(saved.status).toBe(400);
      expect(saved.message).toMatch(/link-local or cloud metadata/);
      await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'true');
      const id = await channel('good-key', { base_url: 'http://169.254.169.254' });
      await server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'false');
      const byId = await admin.get(`/api/channel/fetch_models/${id}`);
      expect(byId.status).toBe(400);
      expect(byId.message).toMatch(/refused/);
      expect((await admin.get(`/api/channel/update_balance/${id}`)).status).toBe(400);
      expect(upstream.seen).toEqual([]);
      expect(
        (await admin.post('/api/channel/fetch_models', { type: 1, base_url: 'file:///etc/passwd', key: 'k' }))
          .status,
      ).toBe(400);
    });

    it('lists upstream models through the guard when private targets are allowed', async () => {
      const r = await admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: `${upstream.url}/`,
        key: 'good-key',
      });
      expect(r.success, r.message).toBe(true);
      expect(r.data).toEqual(['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small']);
      expect(upstream.seen[0]).toMatchObject({ method: 'GET', url: '/v1/models', auth: 'Bearer good-key' });
      const id = await channel('good-key');
      const byId = await admin.get(`/api/channel/fetch_models/${id}`);
      expect(byId.data).toEqual(['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small']);
      const echo = await channel('sk-secret-echoed-key');
      const echoed = await admin.get(`/api/channel/fetch_models/${echo}`);
      expect(echoed.message).toMatch(/401: Incorrect API key provided: \*\*\*/);
      expect(echoed.message).not.toContain('sk-secret-echoed-key');
      const bad = await admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: upstream.url,
        key: 'wrong',
      });
      expect(bad.success).toBe(false);
      expect(bad.message).toMatch(/401/);
      expect(
        (await admin.post('/api/channel/fetch_models', { type: 1, base_url: upstream.url, key: '' })).status,
      ).toBe(400);
    });
  });

  describe('channel tests', () => {
    it('sends a tiny chat request and records the response time', async () => {
      const id = await channel('good-key', { model_mapping: '{"gpt-4.1-nano":"gpt-4.1-nano-2025-04-14"}' });
      const r = await admin.get(`/api/channel/test/${id}?model=gpt-4.1-nano`);
      expect(r.success, r.message).toBe(true);
      const body = (await (
        await fetch(`${server.url}/api/channel/test/${id}`, {
          headers: { cookie: admin.cookie, 'new-api-user': String(admin.userId) },
        })
      ).json()) as { time: number };
      expect(typeof body.time).toBe('number');
      expect(body.time).toBeGreaterThanOrEqual(0);
      expect(body.time).toBeLessThan(5);
      const sent = upstream.seen.find((s) => s.url === '/v1/chat/completions');
      expect(sent?.auth).toBe('Bearer good-key');
      expect(sent?.body).toMatchObject({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 10,
      });
      const after = await row(id);
      expect(after.test_time).toBeGreaterThan(0);
      expect(after.response_time).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(after)).not.toContain('good-key');
    });

    it('auto-disables on a disabling error, then auto-enables when a test passes again', async () => {
      const id = await channel('bad-key');
      const r = await admin.get(`/api/channel/test/${id}`);
      expect(r.success).toBe(false);
      expect(r.message).toMatch(/Incorrect API key/);
      const off = await row(id);
      expect(off.status).toBe(3);
      expect(JSON.parse(off.other_info).status_reason).toMatch(/Incorrect API key/);
      expect(JSON.parse(off.other_info).status_time).toBeGreaterThan(0);
      expect(await enabledAbilities(id)).toEqual([0, 0]);

      await server.ctx.db.db.updateTable('channels').set({ key: 'good-key' }).where('id', '=', id).execute();
      expect((await admin.get(`/api/channel/test/${id}`)).success).toBe(true);
      expect((await row(id)).status).toBe(1);
      expect(await enabledAbilities(id)).toEqual([1, 1]);
    });

    it('disables on insufficient quota (the recorded OpenAI error)', async () => {
      const id = await channel('quota-key');
      expect((await admin.get(`/api/channel/test/${id}`)).message).toMatch(/exceeded your current quota/);
      expect((await row(id)).status).toBe(3);
    });

    it('keeps the channel on a passing error (5xx) and when auto-ban or the option is off', async () => {
      const flaky = await channel('flaky-key');
      expect((await admin.get(`/api/channel/test/${flaky}`)).success).toBe(false);
      expect((await row(flaky)).status).toBe(1);
      const noBan = await channel('bad-key', { auto_ban: 0 });
      await admin.get(`/api/channel/test/${noBan}`);
      expect((await row(noBan)).status).toBe(1);
      await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
      const optOff = await channel('bad-key');
      await admin.get(`/api/channel/test/${optOff}`);
      expect((await row(optOff)).status).toBe(1);
    });

    it('disables a channel slower than ChannelDisableThreshold', async () => {
      await server.ctx.options.set('ChannelDisableThreshold', '0.2');
      const id = await channel('slow-key');
      const r = await admin.get(`/api/channel/test/${id}`);
      expect(r.success).toBe(false);
      expect(r.message).toMatch(/response time/);
      const off = await row(id);
      expect(off.status).toBe(3);
      expect(off.response_time).toBeGreaterThanOrEqual(400);
    });

    it('never re-enables a manually disabled channel', async () => {
      const id = await channel('good-key');
      await admin.put('/api/channel/', { id, status: 2 });
      expect((await admin.get(`/api/channel/test/${id}`)).success).toBe(true);
      expect((await row(id)).status).toBe(2);
      expect(await enabledAbilities(id)).toEqual([0, 0]);
    });

    it('tests every channel in the background', async () => {
      await server.ctx.db.db.deleteFrom('channels').execute();
      await server.ctx.db.db.deleteFrom('abilities').execute();
      const good = await channel('good-key');
      const bad = await channel('bad-key');
      const r = await admin.get('/api/channel/test');
      expect(r.success).toBe(true);
      for (let i = 0; i < 50 && (await row(bad)).status !== 3; i++)
        await new Promise((res) => setTimeout(res, 50));
      expect((await row(bad)).status).toBe(3);
      expect((await row(good)).status).toBe(1);
      expect((await row(good)).test_time).toBeGreaterThan(0);
    });

    it('refuses to test Midjourney and Suno channels, and unknown ids', async () => {
      const id = await channel('good-key', { type: 2 });
      expect((await admin.get(`/api/channel/test/${id}`)).status).toBe(400);
      expect((await admin.get('/api/channel/test/999999')).status).toBe(404);
    });
  });

  describe('health functions for the relay', () => {
    it('disableChannel is a no-op on a channel that is not enabled; enableChannel restores abilities', async () => {
      const id = await channel('good-key');
      let events = 0;
      const off = server.ctx.bus.subscribe('channels', () => events++);
      expect(await disableChannel(server.ctx, id, 'upstream said 401')).toBe(true);
      expect(await disableChannel(server.ctx, id, 'again')).toBe(false);
      expect(events).toBe(1);
      const r = await row(id);
      expect(r.status).toBe(3);
      expect(JSON.parse(r.other_info).status_reason).toBe('upstream said 401');
      expect(await enableChannel(server.ctx, id)).toBe(true);
      expect(await enabledAbilities(id)).toEqual([1, 1]);
      expect(await disableChannel(server.ctx, id, 'by hand', false)).toBe(true);
      expect((await row(id)).status).toBe(2);
      off();
    });
  });

  describe('balances', () => {
    it('reads an OpenAI-style billing balance and stores it', async () => {
      const id = await channel('good-key');
      const r = await admin.get(`/api/channel/update_balance/${id}/`);
      expect(r.success, r.message).toBe(true);
      expect(r.data).toBe(94.5);
      const after = await row(id);
      expect(after.balance).toBe(94.5);
      expect(after.balance_updated_time).toBeGreaterThan(0);
    });

    it('prefers an OpenAI-compatible credit-grants balance when the upstream has one', async () => {
      const id = await channel('grant-key', { type: 8 });
      expect((await admin.get(`/api/channel/update_balance/${id}`)).data).toBe(12.5);
    });

    it('reads a DeepSeek balance and says "not supported" for providers without a balance API', async () => {
      const ds = await channel('good-key', { type: 43 });
      expect((await admin.get(`/api/channel/update_balance/${ds}`)).data).toBe(110);
      const claude = await channel('good-key', { type: 14 });
      const r = await admin.get(`/api/channel/update_balance/${claude}`);
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/not supported/);
    });

    it('updates every enabled channel', async () => {
      const r = await admin.get('/api/channel/update_balance');
      expect(r.success).toBe(true);
      expect(r.data.updated).toBeGreaterThan(0);
    });
  });
});

describe('background jobs on the master node', () => {
  it('tests every channel and refreshes balances on their schedules, and stops at shutdown', async () => {
    const upstream = await startUpstream();
    // 0.005 minutes = 300 ms, so the periodic run happens within the test.
    const server = await startServer({
      env: { CHANNEL_TEST_FREQUENCY: '0.005', CHANNEL_UPDATE_FREQUENCY: '0.005' },
    });
    try {
      await server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'true');
      await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
      const admin = await loginAs(server, { username: 'root', role: Role.Root });
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: 'periodic',
        key: 'bad-key',
        base_url: upstream.url,
        models: 'gpt-4o',
      });
      const id = r.data.ids[0];
      const good = (
        await admin.post('/api/channel/', {
          type: 1,
          name: 'healthy',
          key: 'good-key',
          base_url: upstream.url,
          models: 'gpt-4o',
        })
      ).data.ids[0];
      const balanceOf = async () =>
        Number(
          (
            await server.ctx.db.db
              .selectFrom('channels')
              .select('balance')
              .where('id', '=', good)
              .executeTakeFirstOrThrow()
          ).balance,
        );
      const status = async () =>
        Number(
          (
            await server.ctx.db.db
              .selectFrom('channels')
              .select('status')
              .where('id', '=', id)
              .executeTakeFirstOrThrow()
          ).status,
        );
      // Wait for the periodic runs themselves (on a busy machine they come later than every 300 ms).
      await expect.poll(status, { timeout: 20_000 }).toBe(3);
      expect(upstream.seen.some((s) => s.url === '/v1/chat/completions')).toBe(true);
      await expect.poll(balanceOf, { timeout: 20_000 }).toBe(94.5);
    } finally {
      await server.close();
    }
    const seen = upstream.seen.length;
    await new Promise((res) => setTimeout(res, 700));
    expect(upstream.seen.length).toBe(seen);
    upstream.server.close();
  });
});
