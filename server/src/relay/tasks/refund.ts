import { LogType } from '@modelgate/shared';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { ledgerTransaction } from '../../ledger/credit.ts';
import type { RelayState } from '../relay-state.ts';
import { usageLogRow } from '../settle/usage-log.ts';
import { taskCost } from './charge.ts';

/** The charge a failed task gives back: the same amount to the same user, token and channel counters. */
export interface TaskRefund {
  userId: number;
  tokenId: number;
  channelId: number;
  quota: number;
  model: string;
  group: string;
  taskId: string;
  reason: string;
}

/** The columns a charged task row keeps for its refund (midjourneys and tasks alike). */
export interface ChargedRow {
  id: number;
  user_id: number;
  token_id: number;
  channel_id: number;
  quota: number;
  group: string;
}

/** The refund of a charged task: its whole charge back to its user, token and channel. */
export const refundOf = (row: ChargedRow, model: string, upstreamId: string, reason: string): TaskRefund => ({
  userId: row.user_id,
  tokenId: row.token_id,
  channelId: row.channel_id,
  quota: row.quota,
  model,
  group: row.group,
  taskId: upstreamId || `#${row.id}`,
  reason,
});

/**
 * Finishes a task exactly once. `claim` moves the task's row to its final state inside a transaction and says
 * whether this call did it: a conditional UPDATE (`... WHERE status is not final`), so of any number of callers
 * racing on any number of instances (the task loop, a client's fetch, a notify callback) exactly one wins.
 * When the winner's final state is a failure, `refund` reverses the charge in the same transaction: the user's
 * quota and the token's remaining quota grow by the charge, their used quota and the channel's shrink by it, and
 * a consume log row with the negated quota keeps the log's sum equal to the used quota. A crash cannot separate
 * the final state from its refund. Returns whether this call won.
 */
export async function finishTaskOnce(
  state: RelayState,
  claim: (trx: Transaction<Database>) => Promise<boolean>,
  refund: TaskRefund | null,
): Promise<boolean> {
  const { ctx } = state;
  let won = false;
  const give = refund && refund.quota > 0 ? refund : null;
  // The charge may still wait in the writer's queue: written first, the log reads charge then refund.
  if (give) await state.writer.flush();
  // The upstream cost goes back with the charge: the task's per-call price is its charge over QuotaPerUnit x the
  // group ratio, at the channel's price of now (as the charge was, unless an admin changed it meanwhile).
  const perQuota = give ? state.ctx.options.float('QuotaPerUnit') * state.prices.groupRatio(give.group) : 0;
  const cost = give && perQuota > 0 ? taskCost(state, give.channelId, give.model, give.quota / perQuota) : 0;
  await ledgerTransaction(ctx, async (tx) => {
    won = await claim(tx.trx);
    if (!won || !give) return;
    const q = give.quota;
    await tx.trx
      .updateTable('users')
      .set((eb) => ({ quota: eb('quota', '+', q), used_quota: eb('used_quota', '-', q) }))
      .where('id', '=', give.userId)
      .execute();
    const user = await tx.trx
      .selectFrom('users')
      .select(['username'])
      .where('id', '=', give.userId)
      .executeTakeFirst();
    let tokenName = '';
    if (give.tokenId > 0) {
      await tx.trx
        .updateTable('tokens')
        .set((eb) => ({ remain_quota: eb('remain_quota', '+', q), used_quota: eb('used_quota', '-', q) }))
        .where('id', '=', give.tokenId)
        .execute();
      const token = await tx.trx
        .selectFrom('tokens')
        .select(['name'])
        .where('id', '=', give.tokenId)
        .executeTakeFirst();
      tokenName = token?.name ?? '';
    }
    if (give.channelId > 0)
      await tx.trx
        .updateTable('channels')
        .set((eb) => ({ used_quota: eb('used_quota', '-', q) }))
        .where('id', '=', give.channelId)
        .execute();
    const log = usageLogRow(
      {
        userId: give.userId,
        username: user?.username ?? '',
        tokenId: give.tokenId,
        tokenName,
        group: give.group,
        model: give.model,
        stream: false,
        ip: '',
        requestId: '',
      },
      {
        type: LogType.Consume,
        content: `任务 ${give.taskId} 失败，退还 ${q}（${give.reason}）`,
        other: { content_code: 'task_refund', task_id: give.taskId, refund: true, reason: give.reason },
        channelId: give.channelId,
        quota: -q,
        cost: -cost,
      },
    );
    if (ctx.logDb === ctx.db) await tx.trx.insertInto('logs').values(log).execute();
    else tx.pendingLogs.push(log);
    // The user is announced by the ledger after the commit; the token below.
    tx.touched.add(give.userId);
  });
  if (won && give) {
    state.ledger.reloadShared(`user:${give.userId}`);
    if (give.tokenId > 0) {
      ctx.bus.publish(`token:${give.tokenId}`);
      state.ledger.reloadShared(`token:${give.tokenId}`);
    }
  }
  return won;
}
