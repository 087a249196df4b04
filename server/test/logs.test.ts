import { Role } from '@modelgate/shared';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../src/db/schema.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

type Item = Record<string, any>;

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`usage logs on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient & { userId: number };
    let alice: ConsoleClient & { userId: number };
    let bob: ConsoleClient & { userId: number };
    let channelId: number;
    const now = Math.floor(Date.now() / 1000);
    const dayAgo = now - 86_400;

    const row = (
      o: Partial<Insertable<LogsTable>> & { user_id: number; username: string },
    ): Insertable<LogsTable> => ({
      created_at: now - 5,
      type: 2,
      content: '',
      token_name: 'default',
      token_id: 0,
      model_name: 'gpt-4o-mini',
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 20,
      use_time: 2,
      first_time: 300,
      is_stream: 1,
      channel_id: channelId,
      group: 'default',
      ip: '10.1.2.3',
      request_id: 'req',
      other: JSON.stringify({
        model_ratio: 0.075,
        group_ratio: 1,
        completion_ratio: 4,
        admin_info: { use_channel: [String(channelId)] },
      }),
      ...o,
    });
    const list = async (client: ConsoleClient, path: string) => {
      const r = await client.get(path);
      expect(r.success, r.message).toBe(true);
      return r.data as { items: Item[]; total: number; page: number; page_size: number };
    };

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      alice = await loginAs(server, { username: 'alice' });
      bob = await loginAs(server, { username: 'bob' });
      await server.ctx.db.db
        .insertInto('channels')
        .values({
          type: 1,
          key: 'sk-secret',
          name: 'primary-openai',
          models: 'gpt-4o-mini',
          group: 'default',
        } as never)
        .execute();
      channelId = Number(
        (
          await server.ctx.db.db
            .selectFrom('channels')
            .select('id')
            .where('name', '=', 'primary-openai')
            .executeTakeFirstOrThrow()
        ).id,
      );
      // Everything the accounts code wrote while creating users is older than these rows.
      await server.ctx.logDb.db.deleteFrom('logs').execute();
      const a = { user_id: alice.userId, username: 'alice' };
      const b = { user_id: bob.userId, username: 'bob' };
      await server.ctx.logDb.db
        .insertInto('logs')
        .values([
          row({
            ...a,
            created_at: dayAgo,
            model_name: 'claude-3-haiku',
            quota: 1000,
            prompt_tokens: 100,
            completion_tokens: 50,
          }),
          row({ ...a, token_name: 'ci', quota: 200 }),
          row({ ...a, type: 1, quota: 500000, content: 'top-up', model_name: '', other: '', channel_id: 0 }),
          row({ ...a, type: 5, quota: 0, content: 'upstream error', group: 'vip' }),
          row({ ...b, quota: 300, prompt_tokens: 1, completion_tokens: 2, channel_id: 0 }),
          row({
            ...b,
            type: 3,
            quota: 0,
            content: 'admin adjusted',
            model_name: '',
            other: '',
            channel_id: 0,
          }),
        ])
        .execute();
    });
    afterAll(() => server?.close());

    it('gives admins every row, newest first, with channel names and admin info', async () => {
      const page = await list(admin, '/api/log/?p=1&page_size=10');
      expect(page.total).toBe(6);
      expect(page.page).toBe(1);
      expect(page.page_size).toBe(10);
      const times = page.items.map((i) => i.created_at);
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      expect(page.items.at(-1)?.model_name).toBe('claude-3-haiku');
      const consume = page.items.find((i) => i.username === 'alice' && i.token_name === 'ci');
      expect(consume).toMatchObject({
        channel: channelId,
        channel_name: 'primary-openai',
        ip: '10.1.2.3',
        is_stream: true,
        first_time: 300,
      });
      expect(JSON.parse(consume?.other).admin_info.use_channel).toEqual([String(channelId)]);

      const second = await list(admin, '/api/log/?p=2&page_size=4');
      expect(second.items).toHaveLength(2);
      expect(second.total).toBe(6);
    });

    it('filters by type, user, token, model, group, channel and time', async () => {
      const count = async (q: string) => (await list(admin, `/api/log/?${q}`)).items.length;
      expect(await count('type=2')).toBe(3);
      expect(await count('type=0')).toBe(6);
      expect(await count('type=5')).toBe(1);
      expect(await count('username=bob')).toBe(2);
      expect(await count('token_name=ci')).toBe(1);
      expect(await count('model_name=claude-3-haiku')).toBe(1);
      expect(await count('group=vip')).toBe(1);
      expect(await count(`channel=${channelId}`)).toBe(3);
      expect(await count(`start_timestamp=${now - 3600}`)).toBe(5);
      expect(await count(`start_timestamp=${dayAgo - 10}&end_timestamp=${dayAgo + 10}`)).toBe(1);
      expect(await count('username=&token_name=&type=')).toBe(6);
      expect(await count('username=alice&type=2&model_name=gpt-4o-mini')).toBe(1);
    });

    it('refuses malformed filters with a 400', async () => {
      for (const q of [
        'type=9',
        'type=abc',
        'page_size=1000',
        'page_size=0',
        'start_timestamp=yesterday',
        'channel=-1',
        'p=1e20',
        'start_timestamp=1e30',
      ]) {
        const r = await admin.get(`/api/log/?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.success).toBe(false);
        expect((await alice.get(`/api/log/self/?${q}`)).status, q).toBe(400);
      }
    });

    it('shows a user only their own rows, without admin-only fields', async () => {
      const page = await list(alice, '/api/log/self/?p=1&page_size=10');
      expect(page.total).toBe(4);
      for (const item of page.items) {
        expect(item.user_id).toBe(alice.userId);
        expect(item).not.toHaveProperty('channel');
        expect(item).not.toHaveProperty('channel_name');
        expect(item).not.toHaveProperty('ip');
        expect(item.other).not.toContain('admin_info');
      }
      expect(JSON.parse(page.items.find((i) => i.token_name === 'ci')?.other)).toEqual({
        model_ratio: 0.075,
        group_ratio: 1,
        completion_ratio: 4,
      });
      // Asking for someone else's rows or a channel changes nothing.
      expect((await list(alice, '/api/log/self/?username=bob')).total).toBe(4);
      expect((await list(alice, `/api/log/self/?channel=${channelId}`)).total).toBe(4);
      expect((await list(bob, '/api/log/self/')).items.map((i) => i.username)).toEqual(['bob', 'bob']);
    });

    it('keeps the admin endpoints for admins', async () => {
      for (const r of [
        await alice.get('/api/log/'),
        await alice.get('/api/log/stat'),
        await alice.del(`/api/log/?target_timestamp=${now}`),
      ]) {
        expect(r.status).toBe(403);
      }
    });

    it('sums consumption and measures the last minute', async () => {
      const all = (await admin.get('/api/log/stat')).data;
      expect(all).toEqual({
        quota: 1500,
        prompt_tokens: 111,
        completion_tokens: 72,
        total_tokens: 183,
        rpm: 2,
        tpm: 33,
      });
      const recent = (await admin.get(`/api/log/stat?start_timestamp=${now - 3600}&type=1`)).data;
      expect(recent).toMatchObject({ quota: 500, rpm: 2, tpm: 33 });
      expect((await admin.get('/api/log/stat?username=bob')).data).toMatchObject({
        quota: 300,
        rpm: 1,
        tpm: 3,
      });
      const own = (await alice.get('/api/log/self/stat?username=bob')).data;
      expect(own).toEqual({
        quota: 1200,
        prompt_tokens: 110,
        completion_tokens: 70,
        total_tokens: 180,
        rpm: 1,
        tpm: 30,
      });
      expect((await alice.get('/api/log/self/stat?token_name=nothing')).data).toEqual({
        quota: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        rpm: 0,
        tpm: 0,
      });
    });

    it('cleans rows older than a chosen time and returns the count', async () => {
      expect((await admin.del('/api/log/')).status).toBe(400);
      expect((await admin.del('/api/log/?target_timestamp=abc')).status).toBe(400);
      const ms = await admin.del(`/api/log/?target_timestamp=${Date.now()}`);
      expect(ms.status).toBe(400);
      expect((await list(admin, '/api/log/')).total).toBe(6);
      const r = await admin.del(`/api/log/?target_timestamp=${now - 3600}`);
      expect(r.success, r.message).toBe(true);
      expect(r.data).toBe(1);
      const left = await list(admin, '/api/log/');
      expect(left.total).toBe(5);
      expect(left.items.some((i) => i.model_name === 'claude-3-haiku')).toBe(false);
    });
  });
}
