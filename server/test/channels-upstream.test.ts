import { describe, expect, it } from 'vitest';
import { ALLOW_LINK_LOCAL_OPTION, ALLOW_PRIVATE_OPTION, isPrivateAddress } from '../src/infra/ssrf.ts';
import { channelConsole } from './support/channel-console.ts';
import { startServer } from './support/server.ts';

/** What the console asks of a channel's upstream: its model list (behind the SSRF guard) and its balance. */
describe('channel upstream queries', () => {
  const ch = channelConsole(startServer);

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
      await ch.server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'false');
      const local = await ch.admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: ch.upstream.url,
        key: 'good-key',
      });
      expect(local.success, local.message).toBe(true);
      ch.upstream.seen.length = 0;
      for (const base of [
        'http://169.254.169.254',
        'http://[fe80::1]:8080',
        'http://[fd00:ec2::254]',
        'http://100.100.100.200',
        'http://[::ffff:a9fe:a9fe]',
      ]) {
        const r = await ch.admin.post('/api/channel/fetch_models', {
          type: 1,
          base_url: base,
          key: 'good-key',
        });
        expect(r.status, base).toBe(400);
        expect(r.message, base).toMatch(/refused .*link-local or cloud metadata/);
      }
      // Saving such a channel is refused too, unless root allows link-local targets; a channel saved while
      // it was allowed is refused again once the option is off.
      const saved = await ch.admin.post('/api/channel/', {
        type: 1,
        name: 'metadata',
        key: 'good-key',
        base_url: 'http://169.254.169.254',
        models: 'gpt-4o',
      });
      expect(saved.status).toBe(400);
      expect(saved.message).toMatch(/link-local or cloud metadata/);
      await ch.server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'true');
      const id = await ch.channel('good-key', { base_url: 'http://169.254.169.254' });
      await ch.server.ctx.options.set(ALLOW_LINK_LOCAL_OPTION, 'false');
      const byId = await ch.admin.get(`/api/channel/fetch_models/${id}`);
      expect(byId.status).toBe(400);
      expect(byId.message).toMatch(/refused/);
      expect((await ch.admin.get(`/api/channel/update_balance/${id}`)).status).toBe(400);
      expect(ch.upstream.seen).toEqual([]);
      expect(
        (
          await ch.admin.post('/api/channel/fetch_models', {
            type: 1,
            base_url: 'file:///etc/passwd',
            key: 'k',
          })
        ).status,
      ).toBe(400);
    });

    it('lists upstream models through the guard when private targets are allowed', async () => {
      const r = await ch.admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: `${ch.upstream.url}/`,
        key: 'good-key',
      });
      expect(r.success, r.message).toBe(true);
      expect(r.data).toEqual(['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small']);
      expect(ch.upstream.seen[0]).toMatchObject({
        method: 'GET',
        url: '/v1/models',
        auth: 'Bearer good-key',
      });
      const id = await ch.channel('good-key');
      const byId = await ch.admin.get(`/api/channel/fetch_models/${id}`);
      expect(byId.data).toEqual(['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small']);
      const echo = await ch.channel('sk-secret-echoed-key');
      const echoed = await ch.admin.get(`/api/channel/fetch_models/${echo}`);
      expect(echoed.message).toMatch(/401: Incorrect API key provided: \*\*\*/);
      expect(echoed.message).not.toContain('sk-secret-echoed-key');
      const bad = await ch.admin.post('/api/channel/fetch_models', {
        type: 1,
        base_url: ch.upstream.url,
        key: 'wrong',
      });
      expect(bad.success).toBe(false);
      expect(bad.message).toMatch(/401/);
      expect(
        (await ch.admin.post('/api/channel/fetch_models', { type: 1, base_url: ch.upstream.url, key: '' }))
          .status,
      ).toBe(400);
    });
  });

  describe('balances', () => {
    it('reads an OpenAI-style billing balance and stores it', async () => {
      const id = await ch.channel('good-key');
      const r = await ch.admin.get(`/api/channel/update_balance/${id}/`);
      expect(r.success, r.message).toBe(true);
      expect(r.data).toBe(94.5);
      const after = await ch.row(id);
      expect(after.balance).toBe(94.5);
      expect(after.balance_updated_time).toBeGreaterThan(0);
    });

    it('prefers an OpenAI-compatible credit-grants balance when the upstream has one', async () => {
      const id = await ch.channel('grant-key', { type: 8 });
      expect((await ch.admin.get(`/api/channel/update_balance/${id}`)).data).toBe(12.5);
    });

    it('reads a DeepSeek balance and says "not supported" for providers without a balance API', async () => {
      const ds = await ch.channel('good-key', { type: 43 });
      expect((await ch.admin.get(`/api/channel/update_balance/${ds}`)).data).toBe(110);
      const claude = await ch.channel('good-key', { type: 14 });
      const r = await ch.admin.get(`/api/channel/update_balance/${claude}`);
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/not supported/);
    });

    it('updates every enabled channel', async () => {
      const r = await ch.admin.get('/api/channel/update_balance');
      expect(r.success).toBe(true);
      expect(r.data.updated).toBeGreaterThan(0);
    });
  });
});
