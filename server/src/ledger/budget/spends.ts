import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { accountRow, type Hold } from '../balance.ts';
import type { Budget } from './budget.ts';

/** A settled charge of one budget period, waiting for the writer. */
export interface Spend {
  budget: Budget;
  /** The end of the period the charge belongs to (unix seconds). */
  end: number;
  quota: number;
}

/** The spends a settled hold makes on the user's and the token's budgets. */
export function spendsOf(hold: Hold, quota: number): Spend[] {
  const out: Spend[] = [];
  if (quota === 0) return out;
  const { userEnd, tokenEnd } = hold;
  if (userEnd && hold.user.budget) out.push({ budget: hold.user.budget, end: userEnd, quota });
  if (tokenEnd && hold.token?.budget) out.push({ budget: hold.token.budget, end: tokenEnd, quota });
  return out;
}

/** A spend as plain data (what the database write needs), so a batch can be handed to another thread. */
export interface SpendRow {
  account: string;
  end: number;
  quota: number;
}

export const spendRows = (spends: Spend[]): SpendRow[] =>
  spends.map((s) => ({ account: s.budget.account, end: s.end, quota: s.quota }));

/** What one batch adds to each account's spend, per period. */
export function groupSpends(spends: SpendRow[]): Map<string, Map<number, number>> {
  const by = new Map<string, Map<number, number>>();
  for (const s of spends) {
    const periods = by.get(s.account) ?? new Map<number, number>();
    by.set(s.account, periods);
    periods.set(s.end, (periods.get(s.end) ?? 0) + s.quota);
  }
  return by;
}

/**
 * Adds a batch's spends to `budget_used` in the writer's transaction. Per account only the newest period of the
 * batch is written, with a compare-and-set on `budget_reset_at`:
 *   - the row counts that period: add to it;
 *   - the row counts an older period (no reset yet): this write is the renewal, the period starts at this spend;
 *   - the row counts a newer period: the charge belongs to a period that is over, nothing to add.
 * An older period of the same batch would be renewed away by the newest one anyway, so it is not written.
 * Rows without a budget are left alone.
 */
export async function writeSpends(trx: Transaction<Database>, spends: SpendRow[]): Promise<void> {
  const grouped = [...groupSpends(spends)].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [account, periods] of grouped) {
    const { table, id } = accountRow(account);
    const end = Math.max(...periods.keys());
    const quota = periods.get(end) ?? 0;
    if (quota === 0) continue;
    await trx
      .updateTable(table)
      // budget_used first: MySQL evaluates SET assignments in order, with the values already assigned.
      .set((eb) => ({
        budget_used: eb
          .case()
          .when('budget_reset_at', '=', end)
          .then(eb('budget_used', '+', quota))
          .when('budget_reset_at', '<', end)
          .then(eb.val(quota))
          .else(eb.ref('budget_used'))
          .end(),
        budget_reset_at: eb
          .case()
          .when('budget_reset_at', '<', end)
          .then(eb.val(end))
          .else(eb.ref('budget_reset_at'))
          .end(),
      }))
      .where('id', '=', id)
      .where('budget_quota', '>', 0)
      .execute();
  }
}

/** After the commit: the committed spends move from pending to used in memory. */
export function applyWritten(spends: Spend[]): void {
  for (const s of spends) s.budget.written(s.end, s.quota);
}
