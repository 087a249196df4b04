import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commitRows } from '../src/import/job.ts';
import { ImportRefused } from '../src/import/refused.ts';
import { runImport } from '../src/import/run.ts';
import { hashAccessToken } from '../src/modules/auth/access-token.ts';
import { ConsoleClient } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { importGateway, importPairs } from './support/import-gateway.ts';
import { NEW_API } from './support/import-seed-new-api.ts';
import { MODEL } from './support/import-seed-values.ts';
import { makeSource } from './support/import-sources.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * `npm run import` of a new-api database (tables from that project's GORM models, on SQLite and on MySQL) into
 * a fresh gateway: imported users sign in with their old passwords, imported tokens relay a chat; a second run
 * changes nothing; a dry run writes nothing; foreign or unreachable sources are refused before any write.
 * A one-api database: import-one-api.test.ts.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

for (const { engine, available, target } of importPairs(DATABASES))
  describe.skipIf(!available)(`import from a new-api database on ${engine} into ${target.name}`, () => {
    const gw = importGateway(startServer, 'new-api', engine, target);

    it('moves users, tokens, channels, abilities, options, codes and top-ups and reports what it skipped', async () => {
      const report = await runImport(gw.server.ctx, { from: gw.src.from, logs: true });
      const r = report.toJSON().entities;
      expect(report.flavor).toBe('new-api');
      expect(r.users).toMatchObject({ read: 4, imported: 3, unchanged: 0 });
      expect(r.users.skipped).toEqual([{ id: '4', reason: expect.stringContaining('differs only in case') }]);
      expect(r.users.notes).toHaveProperty([
        'discord sign-in binding has no equivalent here and was dropped',
      ]);
      expect(r.tokens).toMatchObject({ read: 4, imported: 3 });
      expect(r.tokens.skipped).toEqual([{ id: '3', reason: 'its owner (user 99) was not imported' }]);
      expect(r.channels).toMatchObject({ read: 4, imported: 3 });
      expect(r.channels.skipped).toEqual([
        { id: '3', reason: 'channel type 55 (Sora) has no equivalent here' },
      ]);
      expect(r.channels.notes).toHaveProperty([
        'new-api header_override has no equivalent here and was dropped',
      ]);
      expect(r.abilities).toMatchObject({ read: 8, imported: 6 });
      expect(r.abilities.skipped.map((s) => s.reason)).toEqual([
        'channel 1 no longer lists this group and model',
        'channel 3 was not imported',
      ]);
      expect(r.options.imported).toBe(6);
      expect(r.options.skipped).toEqual([
        { id: 'RetryTimes', reason: 'value refused: option RetryTimes: expected an integer' },
        { id: 'console_setting.api_info', reason: 'no equivalent option here' },
      ]);
      expect(r.redemptions).toMatchObject({ read: 3, imported: 3 });
      expect(r.top_ups).toMatchObject({ read: 2, imported: 1 });
      expect(r.top_ups.skipped).toEqual([{ id: '2', reason: 'its user (99) was not imported' }]);
      expect(r.logs).toMatchObject({ read: 3, imported: 3 });
      // Secrets never reach the report, whatever happened to their rows.
      const text = report.format();
      expect(text).not.toContain('smtp-secret-value');
      expect(text).not.toContain('sk-upstream-one');
      expect(text).not.toContain(NEW_API.aliceKey);
    });

    it('keeps what the rows meant: ids, hashes, balances through the ledger, deletions, key states, options', async () => {
      const db = gw.server.ctx.db.db;
      const alice = await db.selectFrom('users').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
      expect(alice).toMatchObject({
        username: 'alice',
        username_key: 'alice',
        quota: NEW_API.aliceQuota,
        used_quota: 987_654,
        request_count: 42,
        aff_code: 'AbC1',
        aff_quota: 2_000,
        aff_history_quota: 5_000,
        inviter_id: 1,
        github_id: '1234567',
        deleted_at: null,
      });
      const root = await db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      expect(root.role).toBe(100);
      expect(root.access_token).toBe(hashAccessToken(NEW_API.accessToken));
      const bob = await db.selectFrom('users').selectAll().where('id', '=', 3).executeTakeFirstOrThrow();
      expect(bob.status).toBe(3);
      expect(Number(bob.deleted_at)).toBeGreaterThan(1_700_000_000);
      // Each carried-over balance is a system log row of the ledger, so the sums reconcile.
      const credits = await db
        .selectFrom('logs')
        .select(['user_id', 'quota', 'type'])
        .where('content', 'like', 'Balance of%')
        .orderBy('user_id')
        .execute();
      expect(credits.map((c) => [Number(c.user_id), Number(c.quota), Number(c.type)])).toEqual([
        [1, 100_000_000, 4],
        [2, NEW_API.aliceQuota, 4],
        [3, 700, 4],
      ]);
      const tokens = await db.selectFrom('tokens').selectAll().orderBy('id').execute();
      expect(tokens.map((t) => [t.id, t.key, t.user_id])).toEqual([
        [1, NEW_API.aliceKey, 2],
        [2, NEW_API.rootKey, 1],
        [4, expect.any(String), 2],
      ]);
      expect(tokens[0]).toMatchObject({ model_limits_enabled: 1, remain_quota: 1_000_000, expired_time: -1 });
      expect(tokens[2].deleted_at).not.toBeNull();
      const pool = await db.selectFrom('channels').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
      expect(JSON.parse(pool.setting)).toEqual({ multi_key_mode: 'polling' });
      expect(Object.values(JSON.parse(pool.key_status ?? '{}'))).toEqual([
        { status: 3, reason: 'insufficient_quota', time: 1717000000 },
      ]);
      const abilities = await db.selectFrom('abilities').selectAll().where('channel_id', '=', 1).execute();
      expect(abilities).toHaveLength(4);
      expect(abilities.every((a) => Number(a.priority) === 10 && Number(a.weight) === 5)).toBe(true);
      const azure = await db.selectFrom('abilities').selectAll().where('channel_id', '=', 4).execute();
      expect(azure.map((a) => a.enabled)).toEqual([0]);
      expect(gw.server.ctx.options.get('SystemName')).toBe('Acme AI');
      expect(gw.server.ctx.options.get('DisplayInCurrencyEnabled')).toBe('false');
      expect(gw.server.ctx.options.json('GroupRatio')).toEqual({ default: 1, vip: 0.8 });
      const codes = await db.selectFrom('redemptions').select(['id', 'status']).orderBy('id').execute();
      expect(codes.map((c) => [c.id, c.status])).toEqual([
        [1, 1],
        [2, 3],
        [3, 2],
      ]);
      const logs = await db
        .selectFrom('logs')
        .selectAll()
        .where('content', 'not like', 'Balance of%')
        .execute();
      expect(logs.map((l) => [Number(l.type), Number(l.quota), l.model_name]).sort()).toEqual(
        [
          [1, 0, ''],
          [2, 150, MODEL],
          [4, 0, ''],
        ].sort(),
      );
    });

    it('lets an imported user sign in with the old password and relay a chat with an imported token', async () => {
      const alice = new ConsoleClient(gw.server.url);
      const login = await alice.login('alice', NEW_API.alicePassword);
      expect(login.success, login.message).toBe(true);
      const self = await alice.get('/api/user/self');
      expect(self.data).toMatchObject({ id: 2, username: 'alice', quota: NEW_API.aliceQuota });
      expect((await new ConsoleClient(gw.server.url).login('alice', 'wrong-password')).success).toBe(false);
      const root = await new ConsoleClient(gw.server.url).login('root', NEW_API.rootPassword);
      expect(root.success, root.message).toBe(true);

      const seen = gw.mock.requests.length;
      const answer = await gw.chat(`sk-${NEW_API.aliceKey}`, 'hello');
      expect(answer.choices[0].message.content).toBeTruthy();
      expect(gw.mock.requests.slice(seen).map((q) => q.headers.authorization)).toEqual([
        'Bearer sk-upstream-one',
      ]);
      await flushLedger(gw.server.ctx);
      const after = await gw.server.ctx.db.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', 2)
        .executeTakeFirstOrThrow();
      const spent = NEW_API.aliceQuota - Number(after.quota);
      expect(spent).toBeGreaterThan(0);
      expect(Number(after.used_quota)).toBe(987_654 + spent);
      const token = await gw.server.ctx.db.db
        .selectFrom('tokens')
        .select('remain_quota')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      expect(Number(token.remain_quota)).toBe(1_000_000 - spent);
    });

    it('changes nothing when run again', async () => {
      const { report, before, after } = await gw.runAgain();
      for (const [name, e] of Object.entries(report.toJSON().entities))
        expect(e.imported, `${name} imported on the second run`).toBe(0);
      expect(report.toJSON().entities.users.unchanged).toBe(3);
      expect(after).toEqual(before);
    });

    it('gives new rows fresh ids after the imported ones', async () => {
      const admin = new ConsoleClient(gw.server.url);
      expect((await admin.login('root', NEW_API.rootPassword)).success).toBe(true);
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: 'after-import',
        key: 'sk-after',
        base_url: gw.mock.url,
        models: ['gpt-4o-mini'],
        group: 'default',
      });
      expect(r.success, r.message).toBe(true);
      expect(r.data.ids[0]).toBeGreaterThan(4);
    });
  });

describe('dry runs and refusals', () => {
  const gw = importGateway(startServer, 'new-api', 'sqlite');

  it('counts everything in a dry run and writes nothing', async () => {
    const before = await gw.snapshot();
    const report = await runImport(gw.server.ctx, { from: gw.src.from, dryRun: true, logs: true });
    const r = report.toJSON().entities;
    expect(r.users.imported).toBe(3);
    expect(r.tokens.imported).toBe(3);
    expect(r.channels.imported).toBe(3);
    expect(r.logs.imported).toBe(3);
    expect(report.format()).toMatch(/^Dry run: nothing was written/);
    expect(await gw.snapshot()).toEqual(before);
    expect(await gw.count('users')).toBe(0);
  });

  it('writes a batch whole, and when one row of it fails, writes the others and lists that one', async () => {
    const db = gw.server.ctx.db.db;
    const row = (id: number, key: string) => ({
      id,
      user_id: 1,
      key,
      status: 1,
      name: `code ${id}`,
      quota: 1,
      created_time: 0,
      redeemed_time: 0,
      used_user_id: 0,
      deleted_at: null,
    });
    const failed: number[] = [];
    const written = await commitRows<ReturnType<typeof row>, typeof db>(
      [row(901, 'k901'), row(902, 'k901'), row(903, 'k903')],
      (fn) => db.transaction().execute(fn),
      async (trx, r) => {
        await trx.insertInto('redemptions').values(r).execute();
      },
      (r) => failed.push(r.id),
    );
    expect(written.map((r) => r.id)).toEqual([901, 903]);
    expect(failed).toEqual([902]);
    const here = await db
      .selectFrom('redemptions')
      .select('id')
      .where('id', '>=', 900)
      .orderBy('id')
      .execute();
    expect(here.map((r) => r.id)).toEqual([901, 903]);
    await db.deleteFrom('redemptions').where('id', '>=', 900).execute();
  });

  it('refuses a database that is not new-api or one-api before writing anything', async () => {
    const foreign = await makeSource('empty', 'sqlite');
    await foreign.exec(
      'CREATE TABLE users (id integer primary key, email text); CREATE TABLE orders (id integer)',
    );
    const before = await gw.snapshot();
    const err = await runImport(gw.server.ctx, { from: foreign.from }).catch((e) => e);
    expect(err).toBeInstanceOf(ImportRefused);
    expect(err.message).toMatch(
      /is not a new-api or one-api database \(missing users\.username, .*table tokens/,
    );
    expect(await gw.snapshot()).toEqual(before);
    await foreign.close();
  });

  it('refuses a source that cannot be reached', async () => {
    const missing = await runImport(gw.server.ctx, {
      from: join(tmpdir(), 'no-such-dir', 'one-api.db'),
    }).catch((e) => e);
    expect(missing).toBeInstanceOf(ImportRefused);
    expect(missing.message).toMatch(/cannot open the source database/);
    const closed = await runImport(gw.server.ctx, { from: 'root:secret-pw@tcp(127.0.0.1:1)/newapi' }).catch(
      (e) => e,
    );
    expect(closed).toBeInstanceOf(ImportRefused);
    expect(closed.message).toMatch(
      /cannot reach the source database root:\*\*\*@tcp\(127\.0\.0\.1:1\)\/newapi/,
    );
    expect(closed.message).not.toContain('secret-pw');
    const notSqlite = join(mkdtempSync(join(tmpdir(), 'gw-import-')), 'notes.txt');
    writeFileSync(
      notSqlite,
      'this is not a database file, only some text that is long enough to be read\n'.repeat(20),
    );
    const garbage = await runImport(gw.server.ctx, { from: notSqlite }).catch((e) => e);
    expect(garbage).toBeInstanceOf(ImportRefused);
    expect(garbage.message).toMatch(/not a database/);
    expect(await gw.count('users')).toBe(0);
  });

  it('the npm script refuses a foreign source before it even creates the target database', async () => {
    const foreign = await makeSource('empty', 'sqlite');
    await foreign.exec('CREATE TABLE notes (id integer primary key, body text)');
    const targetPath = join(mkdtempSync(join(tmpdir(), 'gw-import-target-')), 'gateway.db');
    const run = await runScript(['--from', foreign.from], { SQL_DSN: '', SQLITE_PATH: targetPath });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/import refused: .* is not a new-api or one-api database/);
    expect(existsSync(targetPath)).toBe(false);
    await foreign.close();
  });

  it('the npm script imports and prints its report', async () => {
    const targetPath = join(mkdtempSync(join(tmpdir(), 'gw-import-target-')), 'gateway.db');
    const run = await runScript(['--from', gw.src.from], { SQL_DSN: '', SQLITE_PATH: targetPath });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('users: 4 read, 3 imported, 0 already here, 1 skipped');
    expect(run.stdout).toContain('logs: 0 read');
    const again = await runScript(['--from', gw.src.from], { SQL_DSN: '', SQLITE_PATH: targetPath });
    expect(again.stdout).toContain('users: 4 read, 0 imported, 3 already here, 1 skipped');
  });
});

function runScript(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/import.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => {
      stdout += d;
    });
    proc.stderr.on('data', (d) => {
      stderr += d;
    });
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
