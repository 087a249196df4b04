import { generateKeyPairSync } from 'node:crypto';
import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

/** A service-account key in the shape Google issues (a fresh RSA key; nothing signs with it here). */
const serviceAccount = () =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'demo-project',
    client_email: 'relay@demo-project.iam.gserviceaccount.com',
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  });

const SECRET = 'sk-upstream-secret-0123456789abcdef';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`channels on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient;
    let user: ConsoleClient;
    let published = 0;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      server.ctx.bus.subscribe('channels', () => published++);
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      user = await loginAs(server, { username: 'plain' });
    });
    afterAll(() => server?.close());

    const db = () => server.ctx.db.db;
    const abilities = async (channelId: number) =>
      (await db().selectFrom('abilities').selectAll().where('channel_id', '=', channelId).execute())
        .map((a) => ({
          ...a,
          channel_id: Number(a.channel_id),
          enabled: Number(a.enabled),
          priority: Number(a.priority),
          weight: Number(a.weight),
        }))
        .sort((a, b) => `${a.group}/${a.model}`.localeCompare(`${b.group}/${b.model}`));
    const counts = async () => ({
      channels: Number(
        (
          await db()
            .selectFrom('channels')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      abilities: Number(
        (
          await db()
            .selectFrom('abilities')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    });
    const create = async (body: Record<string, unknown>) => {
      const r = await admin.post('/api/channel/', { type: 1, key: SECRET, ...body });
      expect(r.success, r.message).toBe(true);
      return r.data.ids as number[];
    };
    const noKey = (reply: unknown) => {
      const text = JSON.stringify(reply);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('"key"');
    };

    it('is for admins only', async () => {
      expect((await fetch(`${server.url}/api/channel/?p=0&page_size=10`)).status).toBe(401);
      const r = await user.get('/api/channel/?p=0&page_size=10');
      expect(r.status).toBe(403);
      expect((await user.post('/api/channel/', { name: 'x', key: 'k', models: 'm' })).status).toBe(403);
      expect((await counts()).channels).toBe(0);
    });

    it('creates a channel whose abilities are groups x models, and never shows its key', async () => {
      const before = published;
      const [id] = await create({
        name: 'openai-main',
        models: 'gpt-4o, gpt-4o-mini',
        group: 'default,vip',
        base_url: 'https://api.example.com/',
        priority: 5,
        weight: 3,
        tag: '',
      });
      expect(published).toBeGreaterThan(before);
      const got = await admin.get(`/api/channel/${id}`);
      noKey(got);
      expect(got.data).toMatchObject({
        id,
        name: 'openai-main',
        models: 'gpt-4o,gpt-4o-mini',
        group: 'default,vip',
        base_url: 'https://api.example.com',
        status: 1,
        auto_ban: 1,
      });
      expect(await abilities(id)).toEqual([
        { group: 'default', model: 'gpt-4o', channel_id: id, enabled: 1, priority: 5, weight: 3, tag: '' },
        {
          group: 'default',
          model: 'gpt-4o-mini',
          channel_id: id,
          enabled: 1,
          priority: 5,
          weight: 3,
          tag: '',
        },
        { group: 'vip', model: 'gpt-4o', channel_id: id, enabled: 1, priority: 5, weight: 3, tag: '' },
        { group: 'vip', model: 'gpt-4o-mini', channel_id: id, enabled: 1, priority: 5, weight: 3, tag: '' },
      ]);
      noKey(await admin.get('/api/channel/?p=0&page_size=10'));
      noKey(await admin.get('/api/channel/search?keyword=openai'));
      noKey(await admin.put('/api/channel/', { id, priority: 5 }));
      const stored = await db()
        .selectFrom('channels')
        .select('key')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(stored.key).toBe(SECRET);
    });

    it('creates one channel per key line in batch mode or from a multi-line key', async () => {
      const batch = await create({ mode: 'batch', name: 'batch', key: 'k1\n\n k2 \nk3', models: ['m1'] });
      expect(batch).toHaveLength(3);
      const multi = await create({ name: 'multi', key: 'a1\na2', models: 'm1', groups: ['g1', 'g2'] });
      expect(multi).toHaveLength(2);
      const keys = await db()
        .selectFrom('channels')
        .select(['key', 'group'])
        .where('id', 'in', [...batch, ...multi])
        .orderBy('id')
        .execute();
      expect(keys.map((k) => k.key)).toEqual(['k1', 'k2', 'k3', 'a1', 'a2']);
      expect(keys[3].group).toBe('g1,g2');
      expect((await abilities(multi[1])).map((a) => a.group)).toEqual(['g1', 'g2']);
    });

    it('refuses every invalid channel with a 400 and writes nothing', async () => {
      const before = await counts();
      const bad: Array<[Record<string, unknown>, RegExp]> = [
        [{ name: '', models: 'm' }, /name/],
        [{ name: 'x', key: '', models: 'm' }, /name and key/],
        [{ name: 'x', key: '   ', models: 'm' }, /name and key/],
        [{ name: 'x' }, /at least one model/],
        [{ name: 'x', models: ' , ' }, /at least one model/],
        [{ name: 'x', models: 'm', model_mapping: '{not json' }, /model_mapping/],
        [{ name: 'x', models: 'm', model_mapping: '[1,2]' }, /model_mapping/],
        [{ name: 'x', models: 'm', status_code_mapping: '"400"' }, /status_code_mapping/],
        [{ name: 'x', models: 'm', setting: 'nope' }, /setting/],
        [{ name: 'x', models: 'm', param_override: '1' }, /param_override/],
        [{ name: 'x', models: 'm', priority: -1000 }, /-999/],
        [{ name: 'x', models: 'm', priority: 1.5 }, /priority/],
        [{ name: 'x', models: 'm', weight: -1 }, /weight/],
        [{ name: 'x', models: 'm', type: 9999 }, /channel type/],
        [{ name: 'x', models: 'm', base_url: 'ftp://example.com' }, /base_url/],
        [{ name: 'x', models: 'm', type: 15, key: 'only-one-part' }, /APIKey\|SecretKey/],
        [{ name: 'x', models: 'm', type: 41, key: 'not json', other: 'us-central1' }, /service-account/],
        [{ name: 'x', models: 'm', type: 41, key: '{"type":"service_account"}' }, /client_email/],
        [{ name: 'x', models: 'm', type: 41, key: serviceAccount() }, /region/],
        [{ name: 'x', models: `${'m'.repeat(192)}` }, /191/],
        [{ name: 'x', models: 'm', group: 'g'.repeat(65) }, /64/],
        [{ name: 'n'.repeat(65), models: 'm' }, /channel name must be at most 64 characters/],
      ];
      for (const [body, msg] of bad) {
        const r = await admin.post('/api/channel/', { type: 1, key: 'k', ...body });
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.message, JSON.stringify(body)).toMatch(msg);
      }
      const [id] = await create({ name: 'target', models: 'm' });
      const mid = await counts();
      const badUpdates: Array<Record<string, unknown>> = [
        { id, models: '' },
        { id, name: '' },
        { id, priority: -1000 },
        { id, weight: -5 },
        { id, name: 'n'.repeat(158) },
        { id, status: 3 },
        { id, model_mapping: '{' },
        { name: 'no id' },
      ];
      for (const body of badUpdates)
        expect((await admin.put('/api/channel/', body)).status, JSON.stringify(body)).toBe(400);
      expect((await admin.put('/api/channel/', { id: 999999, name: 'ghost' })).status).toBe(404);
      expect(await counts()).toEqual(mid);
      expect(mid.channels).toBe(before.channels + 1);
      const row = await admin.get(`/api/channel/${id}`);
      expect(row.data).toMatchObject({ name: 'target', models: 'm', priority: 0, weight: 0, status: 1 });
    });

    it('keeps abilities in step with updates: models, groups, status, priority, weight', async () => {
      const [id] = await create({ name: 'upd', models: 'a,b', group: 'default' });
      const r = await admin.put('/api/channel/', {
        id,
        key: '',
        models: ['b', 'c'],
        group: 'default,vip',
        name: 'upd2',
      });
      expect(r.success, r.message).toBe(true);
      expect(
        (await db().selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()).key,
      ).toBe(SECRET);
      expect((await abilities(id)).map((a) => `${a.group}/${a.model}`)).toEqual([
        'default/b',
        'default/c',
        'vip/b',
        'vip/c',
      ]);

      await admin.put('/api/channel/', { id, key: 'sk-new-key' });
      expect(
        (await db().selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()).key,
      ).toBe('sk-new-key');

      const off = await admin.put('/api/channel/', { id, status: 2 });
      expect(off.data.status).toBe(2);
      expect(JSON.parse(off.data.other_info).status_reason).toMatch(/administrator/);
      expect((await abilities(id)).every((a) => a.enabled === 0)).toBe(true);
      await admin.put('/api/channel/', { id, status: 1 });
      expect((await abilities(id)).every((a) => a.enabled === 1)).toBe(true);

      await admin.put('/api/channel/', { id, priority: 7 });
      await admin.put('/api/channel/', { id, weight: 9 });
      expect((await abilities(id)).every((a) => a.priority === 7 && a.weight === 9)).toBe(true);
      const row = (await admin.get(`/api/channel/${id}`)).data;
      expect(row).toMatchObject({ priority: 7, weight: 9, name: 'upd2', status: 1 });
    });

    it('tags: batch set, edit by tag, enable and disable by tag', async () => {
      const ids = await create({ mode: 'batch', name: 'tagged', key: 't1\nt2', models: 'x' });
      expect((await admin.post('/api/channel/batch/tag', { ids, tag: 'team' })).data).toBe(2);
      for (const id of ids) expect((await abilities(id)).every((a) => a.tag === 'team')).toBe(true);

      expect(
        (await admin.put('/api/channel/tag', { tag: 'team', models: 'x,y', groups: 'default,svip' })).success,
      ).toBe(true);
      for (const id of ids)
        expect((await abilities(id)).map((a) => `${a.group}/${a.model}`)).toEqual([
          'default/x',
          'default/y',
          'svip/x',
          'svip/y',
        ]);
      await admin.put('/api/channel/tag', { tag: 'team', priority: 3 });
      await admin.put('/api/channel/tag', { tag: 'team', weight: 4 });
      for (const id of ids)
        expect((await abilities(id)).every((a) => a.priority === 3 && a.weight === 4)).toBe(true);
      expect((await admin.put('/api/channel/tag', { tag: 'team' })).status).toBe(400);
      expect((await admin.put('/api/channel/tag', { tag: 'team', priority: 1.5 })).status).toBe(400);
      expect((await admin.put('/api/channel/tag', { tag: 'team', weight: -1 })).status).toBe(400);
      expect((await admin.put('/api/channel/tag', { tag: 'nobody', priority: 1 })).status).toBe(404);

      expect((await admin.post('/api/channel/tag/disabled', { tag: 'team' })).success).toBe(true);
      for (const id of ids) {
        expect((await admin.get(`/api/channel/${id}`)).data.status).toBe(2);
        expect((await abilities(id)).every((a) => a.enabled === 0)).toBe(true);
      }
      await admin.post('/api/channel/tag/enabled', { tag: 'team' });
      for (const id of ids) expect((await abilities(id)).every((a) => a.enabled === 1)).toBe(true);

      await admin.put('/api/channel/tag', { tag: 'team', new_tag: 'crew' });
      for (const id of ids) expect((await abilities(id)).every((a) => a.tag === 'crew')).toBe(true);
      expect((await admin.post('/api/channel/batch/tag', { ids: [], tag: 'x' })).status).toBe(400);
    });

    it('lists from p=0 with page_size, id sort and tag mode; searches by keyword, group and model', async () => {
      const all = await admin.get('/api/channel/?p=0&page_size=100&id_sort=true');
      const ids = all.data.map((c: { id: number }) => c.id);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      const page1 = await admin.get('/api/channel/?p=1&page_size=2&id_sort=true');
      expect(page1.data.map((c: { id: number }) => c.id)).toEqual(ids.slice(2, 4));
      const byPriority = (await admin.get('/api/channel/?p=0&page_size=100')).data;
      expect(byPriority[0].priority).toBe(
        Math.max(...byPriority.map((c: { priority: number }) => c.priority)),
      );

      const tagMode = (await admin.get('/api/channel/?p=0&page_size=100&tag_mode=true&id_sort=true'))
        .data as Array<{ id: number; tag: string }>;
      expect(tagMode).toHaveLength(ids.length);
      const crewAt = tagMode.map((c, i) => (c.tag === 'crew' ? i : -1)).filter((i) => i >= 0);
      expect(crewAt[1] - crewAt[0]).toBe(1);

      expect(
        (await admin.get('/api/channel/search?keyword=openai')).data.map((c: { name: string }) => c.name),
      ).toEqual(['openai-main']);
      expect((await admin.get('/api/channel/search?keyword=example.com')).data).toHaveLength(1);
      const g1 = (await admin.get('/api/channel/search?group=g1')).data.map((c: { name: string }) => c.name);
      expect(g1).toEqual(['multi', 'multi']);
      expect(
        (await admin.get('/api/channel/search?model=gpt-4o-mini')).data.map((c: { name: string }) => c.name),
      ).toEqual(['openai-main']);
      expect(
        (await admin.get(`/api/channel/search?keyword=${ids[0]}`)).data.map((c: { id: number }) => c.id),
      ).toContain(ids[0]);
      expect((await admin.get('/api/channel/search?keyword=%25')).data).toEqual([]);
    });

    it('lists known and enabled models', async () => {
      const known = (await admin.get('/api/channel/models')).data.map((m: { id: string }) => m.id);
      expect(known).toContain('gpt-4o');
      expect(known).toContain('m1');
      const [id] = await create({ name: 'only-disabled', models: 'lonely-model', status: 2 });
      const enabled = (await admin.get('/api/channel/models_enabled')).data;
      expect(enabled).toContain('gpt-4o-mini');
      expect(enabled).not.toContain('lonely-model');
      await admin.put('/api/channel/', { id, status: 1 });
      expect((await admin.get('/api/channel/models_enabled')).data).toContain('lonely-model');
      const byType = (await user.get('/api/models')).data;
      expect(byType['1']).toContain('gpt-4o');
      expect(byType['14'].some((m: string) => m.startsWith('claude'))).toBe(true);
    });

    it("copies a channel with its key for root, zeroed usage and a suffix; an admin's copy has no key", async () => {
      const [id] = await create({ name: 'orig', models: 'cp' });
      await db().updateTable('channels').set({ used_quota: 123, balance: 9 }).where('id', '=', id).execute();
      const root = await loginAs(server, { username: 'root-copier', role: Role.Root });
      const r = await root.post(`/api/channel/copy/${id}?suffix=_copy`);
      expect(r.success).toBe(true);
      const copyOf = (copyId: number) =>
        db().selectFrom('channels').selectAll().where('id', '=', copyId).executeTakeFirstOrThrow();
      const copy = await copyOf(r.data.id);
      expect(copy).toMatchObject({ name: 'orig_copy', key: SECRET, models: 'cp', status: 1 });
      expect(Number(copy.used_quota)).toBe(0);
      expect(Number(copy.balance)).toBe(0);
      expect(await abilities(r.data.id)).toHaveLength(1);
      // An admin's copy carries no key (channel-key-custody.test.ts), and waits disabled for one.
      const a = await admin.post(`/api/channel/copy/${id}?suffix=_mine`);
      expect(a.success).toBe(true);
      expect(await copyOf(a.data.id)).toMatchObject({ name: 'orig_mine', key: '', models: 'cp', status: 2 });
    });

    it('deletes one, many, and the disabled ones, with their abilities', async () => {
      const ids = await create({ mode: 'batch', name: 'del', key: 'd1\nd2\nd3\nd4', models: 'z' });
      expect((await admin.del(`/api/channel/${ids[0]}/`)).success).toBe(true);
      expect(await abilities(ids[0])).toEqual([]);
      expect((await admin.del(`/api/channel/${ids[0]}`)).status).toBe(404);
      expect((await admin.post('/api/channel/batch', { ids: [ids[1], ids[2]] })).data).toBe(2);
      expect(await abilities(ids[1])).toEqual([]);
      expect((await admin.post('/api/channel/batch', { ids: [] })).status).toBe(400);
      await admin.put('/api/channel/', { id: ids[3], status: 2 });
      const removed = await admin.del('/api/channel/disabled');
      expect(removed.data).toBeGreaterThanOrEqual(1);
      expect(await abilities(ids[3])).toEqual([]);
      expect((await admin.get(`/api/channel/${ids[3]}`)).status).toBe(404);
    });

    it('fix rebuilds abilities from the channels table', async () => {
      const [id] = await create({ name: 'fixme', models: 'f1,f2' });
      await db().deleteFrom('abilities').where('channel_id', '=', id).execute();
      await db()
        .insertInto('abilities')
        .values({
          group: 'default',
          model: 'ghost',
          channel_id: 987654,
          enabled: 1,
          priority: 0,
          weight: 0,
          tag: '',
        })
        .execute();
      const r = await admin.post('/api/channel/fix');
      expect(r.success).toBe(true);
      expect(r.data).toBeGreaterThan(0);
      expect((await abilities(id)).map((a) => a.model)).toEqual(['f1', 'f2']);
      expect(await abilities(987654)).toEqual([]);
    });
  });
}
