import type { ImportJob } from '../job.ts';
import { importPlainTable, type PlannedRow } from '../plain-table.ts';
import { exactInt, fit, int, num, str } from '../values.ts';

/** Top-up records (new-api only) keep their id, trade number, amounts and state; they move no balance. */
export async function importTopUps(job: ImportJob): Promise<void> {
  if (!job.tables.has('top_ups')) return;
  await importPlainTable(job, {
    entity: 'top_ups',
    table: 'top_ups',
    natural: 'trade_no',
    noun: 'top-up',
    plan,
  });
}

function plan(job: ImportJob, r: Record<string, unknown>): PlannedRow | string {
  const id = exactInt(r.id);
  if (!id || id <= 0) return 'no valid id';
  const userId = int(r.user_id);
  if (!job.users.has(userId)) return `its user (${userId}) was not imported`;
  const tradeNo = str(r.trade_no).trim();
  if (!tradeNo || tradeNo.length > 191) return 'its trade number is empty or longer than 191 characters';
  const amount = exactInt(r.amount);
  if (amount === undefined) return 'amount is not an exact integer';
  return {
    id,
    user_id: userId,
    amount,
    money: num(r.money),
    trade_no: tradeNo,
    payment_method: fit(r.payment_method, 32),
    create_time: int(r.create_time),
    complete_time: int(r.complete_time),
    status: fit(r.status, 32) || 'pending',
  };
}
