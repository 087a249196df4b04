import type { AppContext } from '../../src/context.ts';
import { flushLedger } from './relay-seed.ts';

/** A user's usage log rows (type 2), oldest first, once the ledger has written every settled charge. */
export async function usageRows(ctx: AppContext, userId: number) {
  await flushLedger(ctx);
  return ctx.logDb.db
    .selectFrom('logs')
    .selectAll()
    .where('user_id', '=', userId)
    .where('type', '=', 2)
    .orderBy('id')
    .execute();
}
