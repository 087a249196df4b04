import { Role } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { ALLOW_PRIVATE_OPTION } from '../src/infra/ssrf.ts';
import { disableChannel, enableChannel } from '../src/modules/channels/health.ts';
import { channelConsole } from './support/channel-console.ts';
import { startChannelUpstream } from './support/channel-upstream.ts';
import { loginAs } from './support/console-client.ts';
import { startServer } from './support/server.ts';

/** Channel tests from the console, the automatic disabling and enabling they drive, and the periodic runs. */
describe('channel health', () => {
  const ch = channelConsole(startServer);

  describe('channel tests', () => {
    it('sends a tiny chat request and records the response time', async () => {
      const id = await ch.channel('good-key', {
        model_mapping: '{"gpt-4.1-nano":"gpt-4.1-nano-2025-04-14"}',
      });
      const r = await ch.admin.get(`/api/channel/test/${id}?model=gpt-4.1-nano`);
      expect(r.success, r.message).toBe(true);
      const body = (await (
        await fetch(`${ch.server.url}/api/channel/test/${id}`, {
          headers: { cookie: ch.admin.cookie, 'new-api-user': String(ch.admin.userId) },
        })
      ).json()) as { time: number };
      expect(typeof body.time).toBe('number');
      expect(body.time).toBeGreaterThanOrEqual(0);
      expect(body.time).toBeLessThan(5);
      const sent = ch.upstream.seen.find((s) => s.url === '/v1/chat/completions');
      expect(sent?.auth).toBe('Bearer good-key');
      expect(sent?.body).toMatchObject({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 10,
      });
      const after = await ch.row(id);
      expect(after.test_time).toBeGreaterThan(0);
      expect(after.response_time).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(after)).not.toContain('good-key');
    });

    it('auto-disables on a disabling error, then auto-enables when a test passes again', async () => {
      const id = await ch.channel('bad-key');
      const r = await ch.admin.get(`/api/channel/test/${id}`);
      expect(r.success).toBe(false);
      expect(r.message).toMatch(/Incorrect API key/);
      const off = await ch.row(id);
      expect(off.status).toBe(3);
      expect(JSON.parse(off.other_info).status_reason).toMatch(/Incorrect API key/);
      expect(JSON.parse(off.other_info).status_time).toBeGreaterThan(0);
      expect(await ch.enabledAbilities(id)).toEqual([0, 0]);

      await ch.server.ctx.db.db
        .updateTable('channels')
        .set({ key: 'good-key' })
        .where('id', '=', id)
        .execute();
      expect((await ch.admin.get(`/api/channel/test/${id}`)).success).toBe(true);
      expect((await ch.row(id)).status).toBe(1);
      expect(await ch.enabledAbilities(id)).toEqual([1, 1]);
    });

    it('disables on insufficient quota (the recorded OpenAI error)', async () => {
      const id = await ch.channel('quota-key');
      expect((await ch.admin.get(`/api/channel/test/${id}`)).message).toMatch(/exceeded your current quota/);
      expect((await ch.row(id)).status).toBe(3);
    });

    it('keeps the channel on a passing error (5xx) and when auto-ban or the option is off', async () => {
      const flaky = await ch.channel('flaky-key');
      expect((await ch.admin.get(`/api/channel/test/${flaky}`)).success).toBe(false);
      expect((await ch.row(flaky)).status).toBe(1);
      const noBan = await ch.channel('bad-key', { auto_ban: 0 });
      await ch.admin.get(`/api/channel/test/${noBan}`);
      expect((await ch.row(noBan)).status).toBe(1);
      await ch.server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
      const optOff = await ch.channel('bad-key');
      await ch.admin.get(`/api/channel/test/${optOff}`);
      expect((await ch.row(optOff)).status).toBe(1);
    });

    it('disables a channel slower than ChannelDisableThreshold', async () => {
      await ch.server.ctx.options.set('ChannelDisableThreshold', '0.2');
      const id = await ch.channel('slow-key');
      const r = await ch.admin.get(`/api/channel/test/${id}`);
      expect(r.success).toBe(false);
      expect(r.message).toMatch(/response time/);
      const off = await ch.row(id);
      expect(off.status).toBe(3);
      expect(off.response_time).toBeGreaterThanOrEqual(400);
    });

    it('never re-enables a manually disabled channel', async () => {
      const id = await ch.channel('good-key');
      await ch.admin.put('/api/channel/', { id, status: 2 });
      expect((await ch.admin.get(`/api/channel/test/${id}`)).success).toBe(true);
      expect((await ch.row(id)).status).toBe(2);
      expect(await ch.enabledAbilities(id)).toEqual([0, 0]);
    });

    it('tests every channel in the background', async () => {
      await ch.server.ctx.db.db.deleteFrom('channels').execute();
      await ch.server.ctx.db.db.deleteFrom('abilities').execute();
      const good = await ch.channel('good-key');
      const bad = await ch.channel('bad-key');
      const r = await ch.admin.get('/api/channel/test');
      expect(r.success).toBe(true);
      // The run answers at once and tests in the background: wait for its results.
      await expect.poll(async () => (await ch.row(bad)).status).toBe(3);
      await expect.poll(async () => (await ch.row(good)).test_time).toBeGreaterThan(0);
      expect((await ch.row(good)).status).toBe(1);
    });

    it('refuses to test Midjourney and Suno channels, and unknown ids', async () => {
      const id = await ch.channel('good-key', { type: 2 });
      expect((await ch.admin.get(`/api/channel/test/${id}`)).status).toBe(400);
      expect((await ch.admin.get('/api/channel/test/999999')).status).toBe(404);
    });
  });

  describe('health functions for the relay', () => {
    it('disableChannel is a no-op on a channel that is not enabled; enableChannel restores abilities', async () => {
      const id = await ch.channel('good-key');
      let events = 0;
      const off = ch.server.ctx.bus.subscribe('channels', () => events++);
      expect(await disableChannel(ch.server.ctx, id, 'upstream said 401')).toBe(true);
      expect(await disableChannel(ch.server.ctx, id, 'again')).toBe(false);
      expect(events).toBe(1);
      const r = await ch.row(id);
      expect(r.status).toBe(3);
      expect(JSON.parse(r.other_info).status_reason).toBe('upstream said 401');
      expect(await enableChannel(ch.server.ctx, id)).toBe(true);
      expect(await ch.enabledAbilities(id)).toEqual([1, 1]);
      expect(await disableChannel(ch.server.ctx, id, 'by hand', false)).toBe(true);
      expect((await ch.row(id)).status).toBe(2);
      off();
    });
  });
});

describe('background jobs on the master node', () => {
  it('tests every channel and refreshes balances on their schedules, and stops at shutdown', async () => {
    const upstream = await startChannelUpstream();
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
