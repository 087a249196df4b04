import type { AppContext } from '../../src/context.ts';
import { LedgerLogType } from '../../src/ledger/credit.ts';

/** A user's balance (quota) as the database holds it. */
export async function quotaOf(ctx: AppContext, userId: number): Promise<number> {
  const row = await ctx.db.db
    .selectFrom('users')
    .select('quota')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.quota);
}

/** A user's top-up log rows. */
export function topUpLogs(ctx: AppContext, userId: number) {
  return ctx.logDb.db
    .selectFrom('logs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('type', '=', LedgerLogType.Topup)
    .execute();
}
