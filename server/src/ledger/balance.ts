import type { Budget } from './budget/budget.ts';

/**
 * One account's spendable quota as the hot path sees it: the last value read from the database, minus
 * charges settled but not yet written (`pending`), minus amounts held for requests in flight (`held`).
 */
export class Balance {
  pending = 0;
  held = 0;
  /** The account's periodic budget, checked beside the balance (ledger/budget/). */
  budget?: Budget;
  /** `account` names it in a shared hold store ("user:5", "token:9"). */
  constructor(
    public db: number,
    readonly account = '',
  ) {}

  get available(): number {
    return this.db - this.pending - this.held;
  }
}

/** What one request holds: released or settled exactly once. */
/** The row an account name ("user:5", "token:9") stands for. */
export function accountRow(account: string): { table: 'users' | 'tokens'; id: number } {
  const [kind, idText] = account.split(':');
  return { table: kind === 'user' ? 'users' : 'tokens', id: Number(idText) };
}

export interface Hold {
  amount: number;
  user: Balance;
  /** Absent for the playground, which spends the user's quota only. */
  token?: Balance;
  done: boolean;
  /** The end of the budget period the hold was taken in (0 = no budget; absent = charge to the current one). */
  userEnd?: number;
  tokenEnd?: number;
}

export type HoldRefusal = 'user' | 'token';
/** A periodic budget (not the balance) is what is short. */
export type BudgetRefusal = 'user_budget' | 'token_budget';

/**
 * Reserves `amount` on the user and the token and on their periods' budgets, or refuses without touching any;
 * an unlimited token's balance is charged but never checked (its budget is). Synchronous, so atomic within one
 * process.
 */
export function tryHold(
  user: Balance,
  token: Balance | undefined,
  amount: number,
  tokenUnlimited = false,
  nowMs = Date.now(),
): Hold | HoldRefusal | BudgetRefusal {
  if (user.available <= 0 || user.available < amount) return 'user';
  if (token && !tokenUnlimited && (token.available <= 0 || token.available < amount)) return 'token';
  if (user.budget?.active && !user.budget.admits(amount, nowMs)) return 'user_budget';
  if (token?.budget?.active && !token.budget.admits(amount, nowMs)) return 'token_budget';
  user.held += amount;
  if (token) token.held += amount;
  const userEnd = user.budget?.take(amount) ?? 0;
  const tokenEnd = token?.budget?.take(amount) ?? 0;
  return { amount, user, token, done: false, userEnd, tokenEnd };
}

/** Gives back what was held (the request failed before anything was produced). */
export function release(hold: Hold): void {
  if (hold.done) return;
  hold.done = true;
  hold.user.held -= hold.amount;
  if (hold.token) hold.token.held -= hold.amount;
  if (hold.userEnd) hold.user.budget?.give(hold.userEnd, hold.amount);
  if (hold.tokenEnd) hold.token?.budget?.give(hold.tokenEnd, hold.amount);
}

/**
 * Turns a hold into the real charge: the hold is released and `quota` becomes pending until the writer flushes,
 * on the balances and on the budget periods the hold was taken in (the current ones for a hold made without one).
 */
export function settleHold(hold: Hold, quota: number, nowMs = Date.now()): boolean {
  if (hold.done) return false;
  release(hold);
  hold.userEnd ??= hold.user.budget?.currentEnd(nowMs) ?? 0;
  hold.tokenEnd ??= hold.token?.budget?.currentEnd(nowMs) ?? 0;
  hold.user.pending += quota;
  if (hold.token) hold.token.pending += quota;
  if (hold.userEnd) hold.user.budget?.charge(hold.userEnd, quota);
  if (hold.tokenEnd) hold.token?.budget?.charge(hold.tokenEnd, quota);
  return true;
}
