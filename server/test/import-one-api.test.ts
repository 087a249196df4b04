import { describe, expect, it } from 'vitest';
import { runImport } from '../src/import/run.ts';
import { ConsoleClient } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { importGateway, importPairs } from './support/import-gateway.ts';
import { ONE_API } from './support/import-seed-one-api.ts';
import { MODEL } from './support/import-seed-values.ts';
import { startServer } from './support/server.ts';

/**
 * `npm run import` of a one-api database (tables from that project's GORM models, on SQLite and on MySQL) into
 * a fresh gateway: its channel types, credentials, token limits and options translated, imported users sign in
 * and relay through imported tokens, and a second run changes nothing. A new-api database: import.test.ts.
 */
for (const { engine, available, target } of importPairs(DATABASES))
  describe.skipIf(!available)(`import from a one-api database on ${engine} into ${target.name}`, () => {
    const gw = importGateway(startServer, 'one-api', engine, target);

    it('translates one-api types, credentials, token limits and options', async () => {
      const report = await runImport(gw.server.ctx, { from: gw.src.from, logs: true });
      const r = report.toJSON().entities;
      expect(report.flavor).toBe('one-api');
      expect(r.users).toMatchObject({ read: 3, imported: 3 });
      expect(r.users.notes).toHaveProperty(['lark sign-in binding has no equivalent here and was dropped']);
      expect(r.channels).toMatchObject({ read: 6, imported: 5 });
      expect(r.channels.skipped).toEqual([
        { id: '5', reason: 'channel type 38 (DeepL) has no equivalent here' },
      ]);
      expect(r.options.skipped).toEqual([
        { id: 'Theme', reason: 'the console has one theme (light and dark follow the browser)' },
      ]);
      expect(r.options.notes).toHaveProperty(['OidcEnabled became oidc.enabled']);
      expect(r.abilities.skipped).toEqual([
        { id: 'default/deepl-zh@5', reason: 'channel 5 was not imported' },
      ]);

      const db = gw.server.ctx.db.db;
      const channels = await db.selectFrom('channels').selectAll().orderBy('id').execute();
      const byId = new Map(channels.map((c) => [c.id, c]));
      expect(byId.get(2)?.type).toBe(43); // DeepSeek
      expect(byId.get(3)).toMatchObject({
        type: 33,
        key: 'AKIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY|us-east-1',
      });
      expect(byId.get(4)?.type).toBe(39);
      expect(JSON.parse(byId.get(4)?.setting ?? '{}')).toEqual({
        account_id: '0123456789abcdef0123456789abcdef',
      });
      expect(byId.get(6)).toMatchObject({ type: 8, base_url: 'https://api.groq.com/openai' });
      const token = await db.selectFrom('tokens').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      expect(token).toMatchObject({
        model_limits_enabled: 1,
        model_limits: MODEL,
        allow_ips: '127.0.0.0/8\n::1/128',
      });
      const dave = await db.selectFrom('users').selectAll().where('id', '=', 3).executeTakeFirstOrThrow();
      expect(dave.status).toBe(3);
      expect(dave.deleted_at).not.toBeNull();
      expect(gw.server.ctx.options.get('oidc.enabled')).toBe('false');
      const logs = await db
        .selectFrom('logs')
        .selectAll()
        .where('content', 'not like', 'Balance of%')
        .orderBy('created_at')
        .execute();
      expect(logs.map((l) => [Number(l.type), Number(l.use_time), l.request_id])).toEqual([
        [2, 3, '20240601101010123456789'],
        [4, 0, ''],
      ]);
    });

    it('lets an imported user sign in and relay through an imported token', async () => {
      const carol = new ConsoleClient(gw.server.url);
      const login = await carol.login('carol', ONE_API.carolPassword);
      expect(login.success, login.message).toBe(true);
      expect((await carol.get('/api/user/self')).data.quota).toBe(ONE_API.carolQuota);
      const answer = await gw.chat(`sk-${ONE_API.carolKey}`, 'hi');
      expect(answer.choices[0].message.content).toBeTruthy();
      // The deleted user's token no longer works.
      await expect(gw.chat('sk-V'.padEnd(51, 'x'), 'hi')).rejects.toThrow();
    });

    it('changes nothing when run again', async () => {
      const { report, before, after } = await gw.runAgain();
      for (const [name, e] of Object.entries(report.toJSON().entities)) expect(e.imported, name).toBe(0);
      expect(after).toEqual(before);
    });
  });
