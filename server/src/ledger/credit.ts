/**
 * Console-side balance changes: the one way console code adds to or takes from a user's quota.
 *
 * Contract of `creditUser(ctx, {userId, delta, logType, content}, tx?)`:
 * - `delta` is a non-zero safe integer (quota units; negative = debit). Anything else is a 400.
 * - One statement moves the balance: `UPDATE users SET quota = quota + delta WHERE id = ? AND deleted_at IS NULL
 *   AND quota + delta >= 0`, so concurrent debits can never overdraw: a debit that would is refused with a 400
 *   ("insufficient quota") and changes nothing; an unknown or deleted user is a 404.
 * - A log row (type 1 top-up, 3 management, 4 system) with `quota = delta` is written in the same transaction
 *   when the logs live in the main database; with a separate LOG_SQL_DSN it is written right after the commit.
 *   Either way the log rows of a user sum to the balance changes made here.
 * - After the commit, `user:<id>` is published on the bus; the relay's in-memory balances and `ctx.users`
 *   resync on it. Nothing is published for a rolled-back change.
 * - To change other rows in the same transaction (mark a redemption code used, move referral quota), open it
 *   with `ledgerTransaction(ctx, async (tx) => { ...; await creditUser(ctx, input, tx); })`: everything commits
 *   or rolls back together, and the publish happens once the whole transaction has committed. Throwing inside
 *   the callback (for example an ApiError) rolls everything back.
 * The relay's per-request hold and settle live in other files of this folder and follow the same rules.
 */
import type { Insertable, Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../infra/envelope.ts';

export const LedgerLogType = { Topup: 1, Manage: 3, System: 4 } as const;
export type LedgerLogType = (typeof LedgerLogType)[keyof typeof LedgerLogType];

export interface LedgerTx {
  trx: Transaction<Database>;
  /** Users whose change is announced after the commit. */
  readonly touched: Set<number>;
  /** Log rows for a separate log database, written after the commit. */
  readonly pendingLogs: Array<Insertable<Database['logs']>>;
}

export interface CreditInput {
  userId: number;
  delta: number;
  logType: LedgerLogType;
  /** Human-readable line shown in the usage log. */
  content: string;
  /** JSON object stored in the log's `other` column. */
  other?: Record<string, unknown>;
  ip?: string;
}

export interface CreditResult {
  /** The balance right after this change (inside the transaction). */
  quota: number;
  username: string;
}

/** Runs `fn` in one database transaction; after it commits, announces every user it credited. */
export async function ledgerTransaction<T>(ctx: AppContext, fn: (tx: LedgerTx) => Promise<T>): Promise<T> {
  let tx: LedgerTx | undefined;
  const result = await ctx.db.db.transaction().execute(async (trx) => {
    tx = { trx, touched: new Set(), pendingLogs: [] };
    return fn(tx);
  });
  if (tx) await afterCommit(ctx, tx);
  return result;
}

/**
 * A ledger transaction over a transaction the caller runs (the import's one transaction); the caller calls
 * afterCommit with it once that transaction has committed.
 */
export const ledgerTxOn = (trx: Transaction<Database>): LedgerTx => ({
  trx,
  touched: new Set(),
  pendingLogs: [],
});

export async function afterCommit(ctx: AppContext, tx: LedgerTx): Promise<void> {
  if (tx.pendingLogs.length) {
    try {
      await ctx.logDb.db.insertInto('logs').values(tx.pendingLogs).execute();
    } catch (err) {
      ctx.log.error(
        { err, rows: tx.pendingLogs.length },
        'ledger: writing log rows to the log database failed',
      );
    }
  }
  // Awaited: the new balance is in force on this instance before the caller answers.
  await Promise.all([...tx.touched].map((id) => ctx.bus.publish(`user:${id}`)));
}

export async function creditUser(ctx: AppContext, input: CreditInput, tx?: LedgerTx): Promise<CreditResult> {
  if (!tx) return ledgerTransaction(ctx, (own) => creditUser(ctx, input, own));
  const { userId, delta } = input;
  if (!Number.isSafeInteger(delta) || delta === 0)
    throw new ApiError('quota change must be a non-zero integer');
  if (!Number.isSafeInteger(userId) || userId <= 0) throw new ApiError('user not found', 404);

  const res = await tx.trx
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '+', delta) }))
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb(eb('quota', '+', delta), '>=', 0))
    .executeTakeFirst();
  const row = await tx.trx
    .selectFrom('users')
    .select(['quota', 'username', 'group'])
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ApiError('user not found', 404);
  if (Number(res.numUpdatedRows) === 0) throw new ApiError('insufficient quota');

  const log = logRow({
    user_id: userId,
    type: input.logType,
    content: input.content,
    username: row.username,
    quota: delta,
    group: row.group,
    ip: input.ip ?? '',
    other: input.other ? JSON.stringify(input.other) : '',
  });
  if (ctx.logDb === ctx.db) await tx.trx.insertInto('logs').values(log).execute();
  else tx.pendingLogs.push(log);
  tx.touched.add(userId);
  return { quota: Number(row.quota), username: row.username };
}

type LogRow = Insertable<Database['logs']>;

function logRow(
  r: Pick<LogRow, 'user_id' | 'type' | 'content' | 'username' | 'quota' | 'group' | 'other'> & {
    ip?: string;
  },
): LogRow {
  return {
    created_at: Math.floor(Date.now() / 1000),
    token_name: '',
    token_id: 0,
    model_name: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    first_time: 0,
    is_stream: 0,
    channel_id: 0,
    request_id: '',
    ip: '',
    ...r,
  };
}

/** Quota as the log lines show it: `$1.000000` with currency display on, else `500000 quota`. */
export function describeQuota(ctx: AppContext, quota: number): string {
  if (ctx.options.bool('DisplayInCurrencyEnabled')) {
    const perUnit = ctx.options.float('QuotaPerUnit') || 500000;
    return `$${(quota / perUnit).toFixed(6)}`;
  }
  return `${quota} quota`;
}

/**
 * A referral reward for an inviter: lands in the invitation balance (aff_quota, aff_history_quota,
 * aff_count + 1), not in the spendable quota, so its system log row carries quota 0 and names the amount.
 */
export async function creditAffiliate(
  ctx: AppContext,
  inviterId: number,
  amount: number,
  tx: LedgerTx,
): Promise<void> {
  const res = await tx.trx
    .updateTable('users')
    .set((eb) => ({
      aff_quota: eb('aff_quota', '+', amount),
      aff_history_quota: eb('aff_history_quota', '+', amount),
      aff_count: eb('aff_count', '+', 1),
    }))
    .where('id', '=', inviterId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return;
  const row = await tx.trx
    .selectFrom('users')
    .select(['username', 'group'])
    .where('id', '=', inviterId)
    .executeTakeFirstOrThrow();
  const log = logRow({
    user_id: inviterId,
    type: LedgerLogType.System,
    content: `Referral reward ${describeQuota(ctx, amount)} added to the invitation balance`,
    username: row.username,
    quota: 0,
    group: row.group,
    other: JSON.stringify({ aff_quota: amount }),
  });
  if (ctx.logDb === ctx.db) await tx.trx.insertInto('logs').values(log).execute();
  else tx.pendingLogs.push(log);
  tx.touched.add(inviterId);
}

/** Moves `amount` from the user's invitation balance to their quota, atomically; 400 when it is not there. */
export async function transferAffiliate(
  ctx: AppContext,
  userId: number,
  amount: number,
): Promise<CreditResult> {
  return ledgerTransaction(ctx, async (tx) => {
    const res = await tx.trx
      .updateTable('users')
      .set((eb) => ({ aff_quota: eb('aff_quota', '-', amount) }))
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .where('aff_quota', '>=', amount)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new ApiError('transfer failed: not enough invitation quota');
    return creditUser(
      ctx,
      {
        userId,
        delta: amount,
        logType: LedgerLogType.System,
        content: `Transferred ${describeQuota(ctx, amount)} from the invitation balance`,
      },
      tx,
    );
  });
}
