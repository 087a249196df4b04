import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/infra/envelope.ts';
import { creditUser, LedgerLogType, ledgerTransaction } from '../src/ledger/credit.ts';
import { hashPassword } from '../src/modules/auth/password.ts';
import { createAccount } from '../src/modules/users/service.ts';
import { quotaOf } from './support/balances.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`creditUser on ${engine.name}`, () => {
    let server: TestServer;
    let hash: string;
    const newUser = (username: string, quota = 0) =>
      createAccount(server.ctx, { username, passwordHash: hash }, { initialQuota: quota });
    const balance = (id: number) => quotaOf(server.ctx, id);
    const logsOf = (id: number) =>
      server.ctx.db.db
        .selectFrom('logs')
        .select(['type', 'quota', 'content'])
        .where('user_id', '=', id)
        .orderBy('id')
        .execute();

    beforeAll(async () => {
      server = await startServer({ db: engine });
      hash = await hashPassword('password123');
    });
    afterAll(() => server?.close());

    it('credits and debits with a log row per change and announces user:<id> after the commit', async () => {
      const id = await newUser('ledger1');
      const seen: string[] = [];
      const off = server.ctx.bus.subscribe(`user:${id}`, () => seen.push('event'));
      const up = await creditUser(server.ctx, {
        userId: id,
        delta: 1500,
        logType: LedgerLogType.Topup,
        content: 'top-up',
      });
      expect(up).toEqual({ quota: 1500, username: 'ledger1' });
      const down = await creditUser(server.ctx, {
        userId: id,
        delta: -500,
        logType: LedgerLogType.Manage,
        content: 'admin',
      });
      expect(down.quota).toBe(1000);
      off();
      expect(seen).toEqual(['event', 'event']);
      expect(await balance(id)).toBe(1000);
      expect(await logsOf(id)).toEqual([
        { type: 1, quota: 1500, content: 'top-up' },
        { type: 3, quota: -500, content: 'admin' },
      ]);
      expect((await server.ctx.users.get(id))?.quota).toBe(1000);
    });

    it('refuses an overdraft, a zero or fractional amount and an unknown user, changing nothing', async () => {
      const id = await newUser('ledger2', 100);
      const before = await logsOf(id);
      await expect(
        creditUser(server.ctx, { userId: id, delta: -101, logType: 3, content: 'x' }),
      ).rejects.toThrow('insufficient quota');
      await expect(
        creditUser(server.ctx, { userId: id, delta: 0, logType: 3, content: 'x' }),
      ).rejects.toBeInstanceOf(ApiError);
      await expect(
        creditUser(server.ctx, { userId: id, delta: 1.5, logType: 3, content: 'x' }),
      ).rejects.toThrow(/integer/);
      const missing = creditUser(server.ctx, { userId: 987654, delta: 5, logType: 3, content: 'x' });
      await expect(missing).rejects.toMatchObject({ status: 404, message: 'user not found' });
      expect(await balance(id)).toBe(100);
      expect(await logsOf(id)).toEqual(before);
    });

    it('never credits a soft-deleted user', async () => {
      const id = await newUser('ledger3', 10);
      await server.ctx.db.db.updateTable('users').set({ deleted_at: 1 }).where('id', '=', id).execute();
      await expect(
        creditUser(server.ctx, { userId: id, delta: 5, logType: 1, content: 'x' }),
      ).rejects.toMatchObject({ status: 404 });
      expect(await balance(id)).toBe(10);
    });

    it('rolls back the balance, the log and other writes of a caller transaction together', async () => {
      const id = await newUser('ledger4');
      let events = 0;
      const off = server.ctx.bus.subscribe(`user:${id}`, () => events++);
      await expect(
        ledgerTransaction(server.ctx, async (tx) => {
          await creditUser(server.ctx, { userId: id, delta: 700, logType: 1, content: 'code' }, tx);
          await tx.trx.insertInto('options').values({ key: 'LedgerProbe', value: 'x' }).execute();
          throw new ApiError('the code was already used');
        }),
      ).rejects.toThrow('the code was already used');
      off();
      expect(events).toBe(0);
      expect(await balance(id)).toBe(0);
      expect(await logsOf(id)).toEqual([]);
      expect(
        await server.ctx.db.db
          .selectFrom('options')
          .select('key')
          .where('key', '=', 'LedgerProbe')
          .executeTakeFirst(),
      ).toBeUndefined();
    });

    it('200 parallel debits on a small balance never overdraw and the log rows sum to the change', async () => {
      const start = 1000;
      const id = await newUser('ledger5', start);
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, () =>
          creditUser(server.ctx, { userId: id, delta: -7, logType: 3, content: 'debit' }),
        ),
      );
      const okCount = results.filter((r) => r.status === 'fulfilled').length;
      const refused = results.filter((r) => r.status === 'rejected');
      for (const r of refused) expect((r as PromiseRejectedResult).reason.message).toBe('insufficient quota');
      expect(okCount).toBe(Math.floor(start / 7));
      const final = await balance(id);
      expect(final).toBe(start - 7 * okCount);
      expect(final).toBeGreaterThanOrEqual(0);
      const logs = await logsOf(id);
      const sum = logs.reduce((s, l) => s + Number(l.quota), 0);
      expect(sum).toBe(final);
      expect(logs.filter((l) => l.content === 'debit')).toHaveLength(okCount);
    });
  });
}
