import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as verifyCli } from '../src/modules/audit/cli.ts';
import { runRetention } from '../src/modules/retention/job.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

interface Entry {
  seq: number;
  username: string;
  ip: string;
  action: string;
  entity: string;
  target: string;
  changes: Array<{ entity: string; id: string; op: string; fields: Record<string, [unknown, unknown]> }>;
}

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`audit log on ${engine.name}`, () => {
    let server: TestServer;
    let root: ConsoleClient;
    let admin: ConsoleClient;
    let user: ConsoleClient;
    let dsn = { SQL_DSN: '', SQLITE_PATH: '' };

    /** Entries added since `since` (a seq), oldest first. */
    const entriesAfter = async (since: number): Promise<Entry[]> => {
      const r = await root.get('/api/audit/?page_size=100');
      expect(r.status).toBe(200);
      return (r.data.items as Entry[]).filter((e) => e.seq > since).reverse();
    };
    const lastSeq = async () =>
      ((await root.get('/api/audit/?page_size=1')).data.items[0]?.seq ?? 0) as number;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      dsn = { SQL_DSN: server.ctx.config.sqlDsn, SQLITE_PATH: server.ctx.config.sqlitePath };
      root = await loginAs(server, { username: 'root', role: Role.Root });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      user = await loginAs(server, { username: 'alice' });
    });
    afterAll(() => server?.close());

    it('records an option change with who, where from and before/after; a secret option is redacted', async () => {
      const since = await lastSeq();
      expect((await admin.put('/api/option/', { key: 'ModelRatio', value: '{"gpt-x":2}' })).success).toBe(
        true,
      );
      expect((await root.put('/api/option/', { key: 'SMTPToken', value: 'smtp-very-secret' })).success).toBe(
        true,
      );
      const [ratio, smtp] = await entriesAfter(since);
      expect(ratio).toMatchObject({
        username: 'admin',
        ip: '127.0.0.1',
        entity: 'option',
        target: 'option:ModelRatio',
      });
      expect(ratio.action).toBe('PUT /api/option');
      expect(ratio.changes[0].fields.value[1]).toBe('{"gpt-x":2}');
      expect(smtp).toMatchObject({ username: 'root', target: 'option:SMTPToken' });
      expect(smtp.changes[0]).toMatchObject({ op: 'create', fields: { value: [null, '[redacted]'] } });
      const all = await root.get('/api/audit/?page_size=100');
      expect(JSON.stringify(all.data)).not.toContain('very-secret');
    });

    it('records channel create, update and delete with the key redacted', async () => {
      const since = await lastSeq();
      const made = await admin.post('/api/channel/', {
        type: 1,
        name: 'audited',
        key: 'sk-channel-very-secret',
        base_url: 'http://127.0.0.1:9',
        models: 'gpt-x',
        group: 'default',
      });
      expect(made.success, made.message).toBe(true);
      const id = made.data.ids[0] as number;
      expect(
        (await admin.put('/api/channel/', { id, name: 'renamed', key: 'sk-other-very-secret' })).success,
      ).toBe(true);
      expect((await admin.del(`/api/channel/${id}`)).success).toBe(true);
      const [create, update, remove] = await entriesAfter(since);
      expect(create.changes[0]).toMatchObject({ entity: 'channel', id: String(id), op: 'create' });
      expect(create.changes[0].fields.name).toEqual([null, 'audited']);
      expect(create.changes[0].fields.key).toEqual([null, '[redacted]']);
      expect(update.changes[0].op).toBe('update');
      expect(update.changes[0].fields.name).toEqual(['audited', 'renamed']);
      expect(update.changes[0].fields.key).toEqual(['[redacted]', '[redacted]']);
      expect(remove).toMatchObject({ action: 'DELETE /api/channel/:id', target: `channel:${id}` });
      expect(remove.changes[0]).toMatchObject({ op: 'delete' });
      const text = JSON.stringify(await entriesAfter(since));
      expect(text).not.toContain('very-secret');
    });

    it('records users, tokens, redemptions and log deletion, with passwords and keys redacted', async () => {
      const since = await lastSeq();
      expect((await root.post('/api/user/', { username: 'bob', password: 'bob-very-secret' })).success).toBe(
        true,
      );
      const bob = await server.ctx.db.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'bob')
        .executeTakeFirstOrThrow();
      const edit = await root.put('/api/user/', {
        id: bob.id,
        username: 'bob',
        display_name: 'Bob B',
        password: 'bob-new-very-secret',
      });
      expect(edit.success, edit.message).toBe(true);
      expect((await user.post('/api/token/', { name: 'alice-token' })).success).toBe(true);
      expect((await admin.post('/api/redemption/', { name: 'gift', count: 2, quota: 1000 })).success).toBe(
        true,
      );
      expect((await admin.del('/api/log/?target_timestamp=1000')).success).toBe(true);
      const got = await entriesAfter(since);
      expect(got.map((e) => e.entity)).toEqual(['user', 'user', 'token', 'redemption', 'log']);
      expect(got[0].changes[0].fields.password).toEqual([null, '[redacted]']);
      expect(got[1].changes[0].fields.display_name[1]).toBe('Bob B');
      expect(got[1].changes[0].fields.password).toEqual(['[redacted]', '[redacted]']);
      expect(got[2]).toMatchObject({ username: 'alice', action: 'POST /api/token' });
      expect(got[2].changes[0].fields.key).toEqual([null, '[redacted]']);
      expect(got[3].changes.map((c) => c.op)).toEqual(['create', 'create']);
      expect(got[3].changes[0].fields.key).toEqual([null, '[redacted]']);
      expect(got[4]).toMatchObject({ action: 'DELETE /api/log/', entity: 'log' });
      expect(got[4].changes[0].fields.query[1]).toEqual({ target_timestamp: '1000' });
      const text = JSON.stringify(got);
      expect(text).not.toContain('very-secret');
      const tokenKey = (await server.ctx.db.db.selectFrom('tokens').select('key').executeTakeFirstOrThrow())
        .key;
      expect(text).not.toContain(tokenKey);
    });

    it('records nothing for refused calls and calls that change nothing', async () => {
      const since = await lastSeq();
      expect((await admin.put('/api/option/', { key: 'ModelRatio', value: 'not json' })).status).toBe(400);
      expect((await admin.put('/api/option/', { key: 'ModelRatio', value: '{"gpt-x":2}' })).success).toBe(
        true,
      );
      expect((await user.put('/api/option/', { key: 'ModelRatio', value: '{}' })).status).toBe(403);
      expect(await entriesAfter(since)).toEqual([]);
    });

    it('is read-only for everyone and listed to admins and root only, with filters', async () => {
      expect((await user.get('/api/audit/')).status).toBe(403);
      expect((await user.get('/api/audit/verify')).status).toBe(403);
      for (const method of ['PUT', 'DELETE', 'POST'] as const)
        expect((await root.request(method, '/api/audit/', { seq: 1 })).status).toBe(404);
      const channels = await admin.get('/api/audit/?entity=channel');
      expect(channels.data.total).toBe(3);
      expect(channels.data.items.every((e: Entry) => e.entity === 'channel')).toBe(true);
      const byUser = await admin.get('/api/audit/?username=alice');
      expect(byUser.data.items.map((e: Entry) => e.entity)).toEqual(['token']);
      expect((await admin.get('/api/audit/?start_timestamp=abc')).status).toBe(400);
    });

    it('keeps one unbroken chain under concurrent changes', async () => {
      const since = await lastSeq();
      const puts = Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? root : admin).put('/api/option/', { key: 'ModelRatio', value: `{"gpt-x":${i + 10}}` }),
      );
      for (const r of await Promise.all(puts)) expect(r.success, r.message).toBe(true);
      const got = await entriesAfter(since);
      expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => since + 1 + i));
      expect((await admin.get('/api/audit/verify')).data).toMatchObject({ ok: true, problems: [] });
    });

    it('chains every entry by hash; the verifier finds a row edited or removed in the database', async () => {
      const ok = await admin.get('/api/audit/verify');
      expect(ok.data).toMatchObject({ ok: true, firstSeq: 1, problems: [] });
      expect(ok.data.checked).toBeGreaterThanOrEqual(26);
      expect(await verifyCli(dsn)).toBe(0);

      const db = server.ctx.db.db;
      await db.updateTable('audit_logs').set({ username: 'someone-else' }).where('seq', '=', 3).execute();
      const edited = await admin.get('/api/audit/verify');
      expect(edited.data.ok).toBe(false);
      expect(edited.data.problems).toEqual([{ seq: 3, reason: expect.stringContaining('edited') }]);
      expect(await verifyCli(dsn)).toBe(1);

      await db.updateTable('audit_logs').set({ username: 'admin' }).where('seq', '=', 3).execute();
      expect((await admin.get('/api/audit/verify')).data.ok).toBe(true);
      await db.deleteFrom('audit_logs').where('seq', '=', 5).execute();
      const gap = await admin.get('/api/audit/verify');
      expect(gap.data.ok).toBe(false);
      expect(gap.data.problems[0]).toMatchObject({ seq: 6, reason: expect.stringContaining('missing') });
    });

    it('drops old entries by its own retention option (root only), and what is kept still verifies', async () => {
      expect((await admin.put('/api/option/', { key: 'AuditLogRetentionDays', value: '30' })).status).toBe(
        403,
      );
      expect((await root.put('/api/option/', { key: 'AuditLogRetentionDays', value: '30' })).success).toBe(
        true,
      );
      const db = server.ctx.db.db;
      const now = Math.floor(Date.now() / 1000);
      // Everything up to the gap made above is 40 days old: retention removes the head of the chain.
      await db
        .updateTable('audit_logs')
        .set({ created_at: now - 40 * 86_400 })
        .where('seq', '<=', 6)
        .execute();
      const result = await runRetention(server.ctx, { nowSec: now });
      expect(result.audit).toBe(5);
      expect(result.logs).toBe(0);
      const first = await db.selectFrom('audit_logs').select('seq').orderBy('seq').executeTakeFirstOrThrow();
      expect(Number(first.seq)).toBe(7);
      const after = (await admin.get('/api/audit/verify')).data;
      expect(after.firstSeq).toBe(7);
      expect(after).toMatchObject({ ok: true, problems: [] });
    });
  });
}
