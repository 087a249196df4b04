import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import {
  accountRow,
  type Balance,
  type BudgetRefusal,
  chargeWithin,
  type Hold,
  type HoldAsk,
  type HoldRefusal,
  release,
  settleHold,
  tryHold,
} from './balance.ts';
import { budgetExceeded } from './budget/refusal.ts';
import { groupSpends, spendRows, spendsOf } from './budget/spends.ts';
import { RedisHolds, type SettleSlots, type SharedBudget } from './redis-holds.ts';
import type { LedgerWriter } from './writer.ts';

/**
 * The relay's side of the ledger: hold before a call, settle or release after it. Holds are checked in
 * memory (atomic within one process) and, when Redis is configured, also in Redis so that every instance
 * spends the same balance. Periodic budgets are checked in the same step as the balances; a request a budget
 * refuses gets a 429 thrown from `hold`. Durable writes go through the batched writer.
 */
export class Ledger {
  readonly shared?: RedisHolds;
  /** The clock budget periods are read from (unix ms); tests move it. */
  now: () => number = Date.now;

  constructor(
    private readonly ctx: AppContext,
    readonly writer: LedgerWriter,
  ) {
    if (!ctx.redis) return;
    const ttl = Math.max(600, 2 * ctx.config.relayTimeoutSec);
    const namespace = createHash('sha256')
      .update(ctx.config.sqlDsn || ctx.config.sqlitePath)
      .digest('hex')
      .slice(0, 12);
    const shared = new RedisHolds(
      ctx.redis,
      namespace,
      ttl,
      (account) => this.readDb(account),
      (account, end) => this.readBudget(account, end),
    );
    this.shared = shared;
    writer.hooks = {
      before: (accounts) => shared.writing(accounts),
      after: (amounts, spends) => shared.written(amounts, groupSpends(spendRows(spends))),
    };
  }

  private async readDb(account: string): Promise<number | null> {
    const { table, id } = accountRow(account);
    const { db } = this.ctx.db;
    if (table === 'users') {
      const row = await db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirst();
      return row ? Number(row.quota) : null;
    }
    const row = await db.selectFrom('tokens').select('remain_quota').where('id', '=', id).executeTakeFirst();
    return row ? Number(row.remain_quota) : null;
  }

  /** What the account's budget spent in the period ending at `end`: nothing when the row counts another one. */
  private async readBudget(account: string, end: number): Promise<number | null> {
    const { table, id } = accountRow(account);
    const row = await this.ctx.db.db
      .selectFrom(table)
      .select(['budget_used', 'budget_reset_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    return Number(row.budget_reset_at) === end ? Number(row.budget_used) : 0;
  }

  hold(
    user: Balance,
    token: Balance | undefined,
    ask: HoldAsk,
    tokenUnlimited: boolean,
  ): Hold | HoldRefusal | Promise<Hold | HoldRefusal> {
    const now = this.now();
    const local = tryHold(user, token, ask, tokenUnlimited, now);
    if (local === 'user_budget' || local === 'token_budget') throw this.refusal(user, token, local, now);
    // Without Redis the hold is decided in memory: answered at once, no promise on the request path.
    if (!this.shared || typeof local === 'string') return local;
    return this.holdShared(this.shared, local, user, token, ask, tokenUnlimited, now);
  }

  private async holdShared(
    shared: RedisHolds,
    local: Hold,
    user: Balance,
    token: Balance | undefined,
    ask: HoldAsk,
    tokenUnlimited: boolean,
    now: number,
  ): Promise<Hold | HoldRefusal> {
    let verdict: Awaited<ReturnType<RedisHolds['hold']>>;
    try {
      verdict = await shared.hold(user, token, ask, !tokenUnlimited, sharedBudgets(local));
    } catch (err) {
      release(local);
      throw err;
    }
    if (verdict === 'ok') return local;
    release(local);
    if (verdict === 'user_budget' || verdict === 'token_budget')
      throw this.refusal(user, token, verdict, now);
    return verdict;
  }

  private refusal(user: Balance, token: Balance | undefined, who: BudgetRefusal, now: number) {
    const budget = who === 'user_budget' ? user.budget : token?.budget;
    // tryHold only refuses on a budget that exists.
    return budgetExceeded(this.ctx, budget!, who, now);
  }

  release(hold: Hold): void {
    if (hold.done || hold.settling) return;
    release(hold);
    this.shareAdjust(hold, -hold.amount);
  }

  /**
   * Settles a request that cost `quota`: returns what is charged (the cost, or the hold when the cost passed
   * the hold and a limit is already spent: see chargeWithin), or null when the hold was already settled. With
   * Redis the charge is decided in Redis, atomically with every instance's holds.
   */
  async settle(hold: Hold, quota: number): Promise<number | null> {
    if (hold.done || hold.settling) return null;
    const now = this.now();
    // A hold made without a budget period (a charge with nothing held) is charged to the current ones.
    hold.userEnd ??= hold.user.budget?.currentEnd(now) ?? 0;
    hold.tokenEnd ??= hold.token?.budget?.currentEnd(now) ?? 0;
    let charge = chargeWithin(hold, quota, now);
    if (this.shared) {
      hold.settling = true;
      try {
        charge = await this.shared.settle(holdSlots(hold), hold.amount, quota);
      } catch (err) {
        this.ctx.log.error({ err }, "shared settle failed; charged on this instance's figures");
      }
      hold.settling = false;
    }
    settleHold(hold, charge, now);
    for (const spend of spendsOf(hold, charge)) this.writer.pushSpend(spend);
    return charge;
  }

  /** A console change to an account: reread its balance in the shared store too. */
  reloadShared(account: string): void {
    this.shared
      ?.load(account, true)
      .catch((err) => this.ctx.log.error({ err, account }, 'shared balance reload failed'));
  }

  private shareAdjust(hold: Hold, delta: number) {
    if (!this.shared) return;
    const accounts = hold.token ? [hold.user, hold.token] : [hold.user];
    this.shared
      .adjust(accounts, delta, sharedBudgets(hold))
      .catch((err) => this.ctx.log.error({ err }, 'shared hold update failed'));
  }
}

/** The budget periods a hold reserved in, as the shared store names them. */
function sharedBudgets(hold: Hold): SharedBudget[] {
  const out: SharedBudget[] = [];
  const { user, token, userEnd, tokenEnd } = hold;
  if (userEnd && user.budget)
    out.push({ who: 'user_budget', account: user.account, end: userEnd, limit: user.budget.limit });
  if (tokenEnd && token?.budget)
    out.push({ who: 'token_budget', account: token.account, end: tokenEnd, limit: token.budget.limit });
  return out;
}

/** The balances and budget periods a hold is settled against, as the shared store checks them. */
function holdSlots(hold: Hold): SettleSlots {
  return {
    user: hold.user,
    token: hold.token,
    tokenChecked: hold.tokenChecked,
    budgets: sharedBudgets(hold),
  };
}
