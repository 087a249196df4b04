import { ChannelStatus, Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Channels with many keys of one account: the relay spreads requests over the enabled keys (at random or in
 * turn), a key that fails with an auth error is disabled alone and its requests go to the other keys, the
 * channel goes only with its last key, and admins see and edit each key's status without the keys.
 */
const MODEL = 'gpt-4.1-nano-2025-04-14';
const keyOf = (headers: Record<string, unknown>) =>
  String(headers.authorization ?? '').replace(/^Bearer /, '');

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`multi-key channels on ${engine.name}`, () => {
    let server: TestServer;
    let mock: MockUpstream;
    let admin: ConsoleClient;
    let user: ConsoleClient;
    let token: string;

    const client = () => new OpenAI({ apiKey: `sk-${token}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const ask = (model = MODEL) =>
      client().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    const served = (since: number) => mock.requests.slice(since).map((r) => keyOf(r.headers));

    /** A multi-key channel made in the console; each test uses its own model so channels do not mix. */
    async function makeChannel(key: string, model: string, setting = ''): Promise<number> {
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: `keys-${model}`,
        key,
        mode: 'multi_key',
        base_url: mock.url,
        models: [model],
        group: 'default',
        setting,
      });
      expect(r.success, r.message).toBe(true);
      expect(r.data.ids).toHaveLength(1);
      const id = r.data.ids[0];
      // The relay reloads its channels when the console announces the change: wait for that reload.
      await expect.poll(() => relayState(server.ctx).channels.get(id) !== undefined).toBe(true);
      return id;
    }

    beforeAll(async () => {
      mock = await startMockUpstream();
      server = await startServer({ db: engine });
      await server.ctx.options.set('RetryTimes', '2');
      await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      user = await loginAs(server, { username: 'user', quota: 500_000_000 });
      const tk = await user.post('/api/token/', { name: 'app', unlimited_quota: true });
      expect(tk.success, tk.message).toBe(true);
      token = tk.data[0].key;
    });
    afterAll(async () => {
      await server?.close();
      await mock?.close();
    });

    it('spreads 200 requests over 3 keys; the key that answers 401 is disabled alone and the others serve its share', async () => {
      const id = await makeChannel('sk-key-a\nsk-key-b\nsk-badkey', MODEL);
      const since = mock.requests.length;
      const answers = await Promise.all(Array.from({ length: 200 }, () => ask()));
      expect(answers.every((a) => a.choices[0].message.content?.includes('Galaxy Day'))).toBe(true);

      const keys = served(since);
      const count = (k: string) => keys.filter((x) => x === k).length;
      expect(count('sk-key-a') + count('sk-key-b')).toBe(200);
      expect(count('sk-key-a')).toBeGreaterThan(40);
      expect(count('sk-key-b')).toBeGreaterThan(40);
      // The bad key was tried, then left rotation: only requests already on their way reached it.
      expect(count('sk-badkey')).toBeGreaterThan(0);
      expect(count('sk-badkey')).toBeLessThan(200 / 3);

      await expect
        .poll(async () => (await admin.get(`/api/channel/${id}`)).data.keys[2].status)
        .toBe(ChannelStatus.AutoDisabled);
      const view = await admin.get(`/api/channel/${id}`);
      expect(view.data.status).toBe(ChannelStatus.Enabled);
      expect(view.data.keys.map((k: { status: number }) => k.status)).toEqual([
        ChannelStatus.Enabled,
        ChannelStatus.Enabled,
        ChannelStatus.AutoDisabled,
      ]);
      expect(view.data.keys[2].reason).toMatch(/status 401/);
      expect(view.data.keys[2].time).toBeGreaterThan(0);
      const text = JSON.stringify(view.data);
      for (const k of ['sk-key-a', 'sk-key-b', 'sk-badkey']) expect(text).not.toContain(k);

      // Later requests never reach the disabled key.
      const after = mock.requests.length;
      await Promise.all(Array.from({ length: 20 }, () => ask()));
      expect(served(after).filter((k) => k === 'sk-badkey')).toEqual([]);

      // Each usage log row says which key served it (for admins).
      await flushLedger(server.ctx);
      const rows = await server.ctx.db.db
        .selectFrom('logs')
        .select('other')
        .where('channel_id', '=', id)
        .where('type', '=', 2)
        .execute();
      expect(rows.length).toBe(220);
      const indexes = new Set(rows.map((r) => JSON.parse(String(r.other)).admin_info.multi_key_index));
      expect([...indexes].sort()).toEqual([0, 1]);
      await admin.del(`/api/channel/${id}`);
    });

    it('takes keys in turn in polling mode', async () => {
      const id = await makeChannel(
        'sk-p1\nsk-p2\nsk-p3',
        'gpt-4o-mini',
        JSON.stringify({ multi_key_mode: 'polling' }),
      );
      const since = mock.requests.length;
      for (let i = 0; i < 6; i++) await ask('gpt-4o-mini');
      const keys = served(since);
      expect(keys).toHaveLength(6);
      expect(keys.slice(0, 3).sort()).toEqual(['sk-p1', 'sk-p2', 'sk-p3']);
      expect(keys.slice(3)).toEqual(keys.slice(0, 3));
      await admin.del(`/api/channel/${id}`);
    });

    it('disables the channel with its last key, and the request fails only then', async () => {
      const id = await makeChannel('sk-badkey-1\nsk-badkey-2', 'gpt-4o');
      // The first key answers 401 and is disabled, the retry takes the second, which answers 401 too.
      const err = await ask('gpt-4o').catch((e) => e);
      // The caller's token is fine: the gateway's own error, not the provider's "Incorrect API key".
      expect(err.status).toBe(503);
      expect(err.code).toBe('upstream_auth_failed');
      expect(err.message).not.toContain('sk-badkey');
      expect(err.message).not.toContain('Incorrect API key');
      // Out of rotation at once; saved in the background.
      await expect
        .poll(async () => {
          const view = await admin.get(`/api/channel/${id}`);
          return [view.data.status, ...view.data.keys.map((k: { status: number }) => k.status)];
        })
        .toEqual([ChannelStatus.AutoDisabled, ChannelStatus.AutoDisabled, ChannelStatus.AutoDisabled]);

      // Enabling the channel brings its automatically disabled keys back.
      const on = await admin.put('/api/channel/', { id, status: ChannelStatus.Enabled });
      expect(on.success, on.message).toBe(true);
      const back = await admin.get(`/api/channel/${id}`);
      expect(back.data.keys.map((k: { status: number }) => k.status)).toEqual([1, 1]);
      await admin.del(`/api/channel/${id}`);
    });

    it('lets admins add, replace, remove, disable and enable keys without retyping the others', async () => {
      const id = await makeChannel('sk-e1\nsk-e2', 'gpt-4.1-mini');
      const list = async () => (await admin.get(`/api/channel/${id}/keys`)).data;
      const first = await list();
      expect(first).toHaveLength(2);

      let r = await admin.post(`/api/channel/${id}/keys`, { action: 'disable', index: 1 });
      expect(r.success, r.message).toBe(true);
      expect(r.data[1]).toMatchObject({
        status: ChannelStatus.ManuallyDisabled,
        reason: 'disabled by an administrator',
      });

      r = await admin.post(`/api/channel/${id}/keys`, { action: 'add', keys: 'sk-e3\nsk-e4' });
      expect(r.success, r.message).toBe(true);
      expect(r.data.map((k: { status: number }) => k.status)).toEqual([1, 2, 1, 1]);

      // Removing key 0 moves the others up; the disabled key keeps its status (statuses follow the key).
      r = await admin.post(`/api/channel/${id}/keys`, { action: 'remove', index: 0 });
      expect(r.data.map((k: { status: number }) => k.status)).toEqual([2, 1, 1]);
      expect(r.data[0].fingerprint).toBe(first[1].fingerprint);

      r = await admin.post(`/api/channel/${id}/keys`, { action: 'replace', index: 2, key: 'sk-e5' });
      expect(r.data).toHaveLength(3);
      expect(r.data[2].fingerprint).not.toBe(first[0].fingerprint);

      r = await admin.post(`/api/channel/${id}/keys`, { action: 'enable', index: 0 });
      expect(r.data.map((k: { status: number }) => k.status)).toEqual([1, 1, 1]);

      const row = await server.ctx.db.db
        .selectFrom('channels')
        .select('key')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.key.split('\n')).toEqual(['sk-e2', 'sk-e3', 'sk-e5']);
      await admin.del(`/api/channel/${id}`);
    });

    it('refuses setting values the channel type cannot use, when the channel is saved', async () => {
      const base = { name: 'settings', base_url: mock.url, models: ['gpt-4.1'], group: 'default' };
      const tries: Array<[Record<string, unknown>, RegExp]> = [
        [{ type: 1, key: 'sk-a', setting: '{"multi_key_mode":"sometimes"}' }, /multi_key_mode/],
        [
          { type: 33, key: 'AKIAABCDEFGHIJKLMNOP|secret|us-east-1', setting: '{"aws_cross_region":5}' },
          /aws_cross_region/,
        ],
        [
          { type: 17, key: 'sk-ali', setting: '{"poll_interval_ms":5}' },
          /poll_interval_ms must be between 50 and 10000/,
        ],
        [{ type: 23, key: '1250000000|AKIDxxxx|secret', setting: '{"region":"Guangzhou!"}' }, /region/],
      ];
      const before = await server.ctx.db.db.selectFrom('channels').select('id').execute();
      for (const [body, message] of tries) {
        const r = await admin.post('/api/channel/', { ...base, ...body });
        expect(r.success, JSON.stringify(body)).toBe(false);
        expect(r.message).toMatch(message);
      }
      expect(await server.ctx.db.db.selectFrom('channels').select('id').execute()).toEqual(before);
      const ok = await admin.post('/api/channel/', {
        ...base,
        type: 33,
        key: 'AKIAABCDEFGHIJKLMNOP|secret|us-east-1',
        setting: '{"aws_cross_region":"eu"}',
      });
      expect(ok.success, ok.message).toBe(true);
      const bad = await admin.put('/api/channel/', {
        id: ok.data.ids[0],
        setting: '{"aws_cross_region":"EU!"}',
      });
      expect(bad.success).toBe(false);
      expect(bad.message).toMatch(/aws_cross_region/);
      await admin.del(`/api/channel/${ok.data.ids[0]}`);
    });

    it('refuses bad key edits with a clear message and changes nothing', async () => {
      const id = await makeChannel('sk-x1\nsk-x2', 'gpt-4.1');
      const before = await server.ctx.db.db
        .selectFrom('channels')
        .select(['key', 'key_status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const tries: Array<[unknown, number, RegExp]> = [
        [{ action: 'remove', index: 9 }, 404, /no key #9/],
        [{ action: 'enable', index: -1 }, 400, /index/],
        [{ action: 'fly', index: 0 }, 400, /action/],
        [{ action: 'add', keys: '   ' }, 400, /keys are required/],
        [{ action: 'replace', index: 0, key: 'sk-a\nsk-b' }, 400, /exactly one key/],
        ['{not json', 400, /JSON/],
      ];
      for (const [body, status, message] of tries) {
        const r = await admin.post(`/api/channel/${id}/keys`, body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        expect(r.message).toMatch(message);
      }
      await admin.post(`/api/channel/${id}/keys`, { action: 'remove', index: 0 });
      const last = await admin.post(`/api/channel/${id}/keys`, { action: 'remove', index: 0 });
      expect(last.status).toBe(400);
      expect(last.message).toMatch(/at least one key/);
      const unknown = await admin.get('/api/channel/999999/keys');
      expect(unknown.status).toBe(404);
      // Users are not admins: the server refuses them.
      const denied = await user.get(`/api/channel/${id}/keys`);
      expect(denied.success).toBe(false);
      expect([401, 403]).toContain(denied.status);
      const after = await server.ctx.db.db
        .selectFrom('channels')
        .select(['key', 'key_status'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(after.key).toBe('sk-x2');
      expect(before.key_status).toBe(after.key_status);
      await admin.del(`/api/channel/${id}`);
    });
  });
}
