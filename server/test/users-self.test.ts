import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashAccessToken } from '../src/modules/auth/access-token.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`personal settings on ${engine.name}`, () => {
    let server: TestServer;
    const row = (id: number) =>
      server.ctx.db.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    beforeAll(async () => {
      server = await startServer({ db: engine });
    });
    afterAll(() => server?.close());

    it('shows the own account with quota, referral and setting fields but no secrets', async () => {
      const u = await loginAs(server, { username: 'selfie', quota: 1234 });
      const r = await u.get('/api/user/self');
      expect(r.status).toBe(200);
      expect(r.data).toMatchObject({
        id: u.userId,
        username: 'selfie',
        display_name: 'selfie',
        role: 1,
        status: 1,
        group: 'default',
        quota: 1234,
        used_quota: 0,
        request_count: 0,
        aff_count: 0,
        aff_quota: 0,
        aff_history_quota: 0,
        inviter_id: 0,
        DeletedAt: null,
      });
      expect(r.data.aff_code).toMatch(/^[A-Za-z0-9]{4}$/);
      expect(JSON.parse(r.data.setting)).toEqual({
        notify_type: 'email',
        quota_warning_threshold: 500000,
        webhook_url: '',
        notification_email: '',
        accept_unset_model_ratio_model: false,
        webhook_secret_set: false,
      });
      expect(r.data).not.toHaveProperty('password');
      expect(r.data).not.toHaveProperty('access_token');
    });

    it('changes the display name, and the password only with the right original', async () => {
      const u = await loginAs(server, { username: 'pwuser', password: 'first-pass-1' });
      expect((await u.put('/api/user/self', { display_name: 'Pat' })).success).toBe(true);
      expect((await u.get('/api/user/self')).data.display_name).toBe('Pat');
      const tooLong = await u.put('/api/user/self', { display_name: 'x'.repeat(21) });
      expect(tooLong).toMatchObject({ status: 400, message: 'display_name must be at most 20 characters' });

      const before = (await row(u.userId)).password;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ password: 'second-pass-2' }, 'enter the original password to change it'],
        [{ password: 'second-pass-2', original_password: 'wrong-pass-0' }, 'the original password is wrong'],
        [
          { password: 'first-pass-1', original_password: 'first-pass-1' },
          'the new password must differ from the original one',
        ],
        [{ password: 'short', original_password: 'first-pass-1' }, 'password length must not be less than 8'],
        [
          { password: 'y'.repeat(21), original_password: 'first-pass-1' },
          'password must be at most 20 characters',
        ],
        [{ password: 123456789, original_password: 'first-pass-1' }, 'password must be a string'],
        [{}, 'nothing to update'],
      ];
      for (const [body, message] of cases) {
        const r = await u.put('/api/user/self', body);
        expect(r.status, message).toBe(400);
        expect(r.message).toBe(message);
      }
      expect((await row(u.userId)).password).toBe(before);
      const otherDevice = new ConsoleClient(server.url);
      await otherDevice.login('pwuser', 'first-pass-1');
      expect((await otherDevice.get('/api/user/self')).status).toBe(200);
      const changed = await u.put('/api/user/self', {
        password: 'second-pass-2',
        original_password: 'first-pass-1',
      });
      expect(changed).toMatchObject({ success: true, message: 'password changed' });
      // The new password ends the other session; the one that changed it goes on.
      expect((await otherDevice.get('/api/user/self')).status).toBe(401);
      expect((await u.get('/api/user/self')).status).toBe(200);
      expect((await new ConsoleClient(server.url).login('pwuser', 'first-pass-1')).success).toBe(false);
      expect((await new ConsoleClient(server.url).login('pwuser', 'second-pass-2')).success).toBe(true);
    });

    it('ignores group and quota sent to the self endpoint', async () => {
      const u = await loginAs(server, { username: 'sneaky', quota: 10 });
      await u.put('/api/user/self', { display_name: 'Sneaky', group: 'vip', quota: 999999999, role: 100 });
      expect(await row(u.userId)).toMatchObject({
        group: 'default',
        quota: 10,
        role: 1,
        display_name: 'Sneaky',
      });
    });

    it('issues a system access token shown once, stored hashed, usable with New-Api-User', async () => {
      const u = await loginAs(server, { username: 'tokened' });
      const t1 = (await u.get('/api/user/token')).data as string;
      expect(t1).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const stored = (await row(u.userId)).access_token;
      expect(stored).toBe(hashAccessToken(t1));
      expect(stored).not.toContain(t1);

      const api = new ConsoleClient(server.url);
      api.userId = u.userId;
      expect((await api.get('/api/user/self', { authorization: t1 })).data.username).toBe('tokened');
      expect((await api.get('/api/user/self', { authorization: `Bearer ${t1}` })).status).toBe(200);
      const noHeader = await api.get('/api/user/self', { authorization: t1, 'new-api-user': '' });
      expect(noHeader.status).toBe(401);
      const wrong = await api.get('/api/user/self', { authorization: 'not-a-token' });
      expect(wrong).toMatchObject({ status: 401, message: 'invalid access token' });

      const t2 = (await u.get('/api/user/token')).data as string;
      expect(t2).not.toBe(t1);
      expect((await api.get('/api/user/self', { authorization: t1 })).status).toBe(401);
      expect((await api.get('/api/user/self', { authorization: t2 })).status).toBe(200);
    });

    it('saves notification settings with validation, keeping a secret sent blank', async () => {
      const u = await loginAs(server, { username: 'notify' });
      const good = {
        notify_type: 'webhook',
        quota_warning_threshold: 100000,
        webhook_url: 'https://203.0.113.10/x',
        webhook_secret: 'hook-secret',
        notification_email: '',
        accept_unset_model_ratio_model: true,
      };
      expect((await u.put('/api/user/setting', good)).success).toBe(true);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, notify_type: 'sms' }, 'notify_type must be email or webhook'],
        [{ ...good, quota_warning_threshold: -1 }, 'quota_warning_threshold must not be negative'],
        [{ ...good, quota_warning_threshold: 'lots' }, 'quota_warning_threshold must be a number'],
        [
          { ...good, webhook_url: 'http://hooks.example.com/x' },
          'the webhook address must be an https:// URL',
        ],
        [{ ...good, webhook_url: '' }, 'enter the webhook address'],
        [
          { ...good, notify_type: 'email', notification_email: 'nope' },
          'invalid notification e-mail address',
        ],
        [
          { ...good, accept_unset_model_ratio_model: 'yes' },
          'accept_unset_model_ratio_model must be true or false',
        ],
      ];
      for (const [body, message] of cases) {
        const r = await u.put('/api/user/setting', body);
        expect(r.status, message).toBe(400);
        expect(r.message).toBe(message);
      }
      await u.put('/api/user/setting', { ...good, webhook_secret: '' });
      const snap = await server.ctx.users.get(u.userId);
      expect(snap?.setting).toEqual({ ...good, notify_type: 'webhook' });
      const shown = JSON.parse((await u.get('/api/user/self')).data.setting);
      expect(shown).toMatchObject({ notify_type: 'webhook', webhook_secret_set: true });
      expect(shown).not.toHaveProperty('webhook_secret');
    });

    it('moves invitation quota to the balance atomically, within the limits', async () => {
      const u = await loginAs(server, { username: 'affer' });
      await server.ctx.db.db
        .updateTable('users')
        .set({ aff_quota: 1_200_000, aff_history_quota: 1_200_000 })
        .where('id', '=', u.userId)
        .execute();
      const small = await u.post('/api/user/aff_transfer', { quota: 400000 });
      expect(small).toMatchObject({ status: 400, message: 'the minimum transfer amount is $1.000000' });
      const tooMuch = await u.post('/api/user/aff_transfer', { quota: 2_000_000 });
      expect(tooMuch).toMatchObject({ status: 400, message: 'transfer failed: not enough invitation quota' });
      expect((await u.post('/api/user/aff_transfer', { quota: 'all' })).message).toBe(
        'quota must be an integer',
      );
      const results = await Promise.all(
        Array.from({ length: 5 }, () => u.post('/api/user/aff_transfer', { quota: 500000 })),
      );
      expect(results.filter((r) => r.success)).toHaveLength(2);
      const self = (await u.get('/api/user/self')).data;
      expect(self).toMatchObject({ quota: 1_000_000, aff_quota: 200_000, aff_history_quota: 1_200_000 });
    });

    it('lists usable groups (own group always) and the models of the own group', async () => {
      await server.ctx.options.set('GroupRatio', '{"default":1,"vip":1.5,"svip":2}');
      const u = await loginAs(server, { username: 'grouper', group: 'svip' });
      const g = await u.get('/api/user/self/groups');
      expect(g.data).toEqual({
        default: { desc: '默认分组', ratio: 1 },
        vip: { desc: 'vip分组', ratio: 1.5 },
        svip: { desc: 'user group', ratio: 2 },
      });
      await server.ctx.db.db
        .insertInto('abilities')
        .values([
          { group: 'svip', model: 'gpt-4o', channel_id: 1, enabled: 1, priority: 0, weight: 0, tag: '' },
          { group: 'svip', model: 'gpt-4o', channel_id: 2, enabled: 1, priority: 0, weight: 0, tag: '' },
          {
            group: 'svip',
            model: 'claude-3-haiku',
            channel_id: 1,
            enabled: 1,
            priority: 0,
            weight: 0,
            tag: '',
          },
          {
            group: 'svip',
            model: 'disabled-model',
            channel_id: 3,
            enabled: 0,
            priority: 0,
            weight: 0,
            tag: '',
          },
          {
            group: 'default',
            model: 'default-only',
            channel_id: 1,
            enabled: 1,
            priority: 0,
            weight: 0,
            tag: '',
          },
        ])
        .execute();
      expect((await u.get('/api/user/models')).data).toEqual(['claude-3-haiku', 'gpt-4o']);
      const visitor = await new ConsoleClient(server.url).get('/api/user/groups');
      expect(visitor.data).toEqual({
        default: { desc: '默认分组', ratio: 1 },
        vip: { desc: 'vip分组', ratio: 1.5 },
      });
      expect(Object.keys((await u.get('/api/user/groups')).data)).toContain('svip');
      expect((await new ConsoleClient(server.url).get('/api/user/models')).status).toBe(401);
    });

    it('deletes the own account softly and ends the session; root cannot delete itself', async () => {
      const u = await loginAs(server, { username: 'leaver' });
      const r = await u.del('/api/user/self');
      expect(r.success).toBe(true);
      expect((await row(u.userId)).deleted_at).not.toBeNull();
      const again = new ConsoleClient(server.url);
      expect((await again.login('leaver', 'password123')).success).toBe(false);
      again.cookie = '';
      const root = await loginAs(server, { username: 'rooty', role: Role.Root });
      const refused = await root.del('/api/user/self');
      expect(refused).toMatchObject({ status: 400, message: 'the root account cannot be deleted' });
      expect((await row(root.userId)).deleted_at).toBeNull();
    });
  });
}
