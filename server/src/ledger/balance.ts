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

/** The row an account name ("user:5", "token:9") stands for. */
export function accountRow(account: string): { table: 'users' | 'tokens'; id: number } {
  const [kind, idText] = account.split(':');
  return { table: kind === 'user' ? 'users' : 'tokens', id: Number(idText) };
}

/** What one request holds: released or settled exactly once. */
export interface Hold {
  /** The most the request can cost (the bound the ledger reserves). */
  amount: number;
  user: Balance;
  /** Absent for the playground, which spends the user's quota only. */
  token?: Balance;
  /** Whether the token's balance limits the request (false for an unlimited token: only its budget does). */
  tokenChecked: boolean;
  done: boolean;
  /** Set while a shared (Redis) settle is deciding the charge: the hold can no longer be released. */
  settling?: boolean;
  /** The end of the budget period the hold was taken in (0 = no budget; absent = charge to the current one). */
  userEnd?: number;
  tokenEnd?: number;
}

export type HoldRefusal = 'user' | 'token';
/** A periodic budget (not the balance) is what is short. */
export type BudgetRefusal = 'user_budget' | 'token_budget';

/** What a request asks the ledger for: admitted when every limit has `need` left, then `amount` is reserved. */
export interface HoldAsk {
  /** The expected cost: an account with less left than this is refused. */
  need: number;
  /** The most the request can cost (need <= amount): reserved until the request settles. */
  amount: number;
}

/** A limit admits a request while it has something left and at least the request's expected cost. */
export const admits = (left: number, need: number): boolean => left > 0 && left >= need;

/**
 * Reserves `ask.amount` on the user and the token and on their periods' budgets, or refuses without touching any.
 * A request is admitted on `ask.need`: an account that has its expected cost but not its bound is admitted
 * "uncovered", and the reservation takes it below zero, so no other request of that account is admitted until
 * this one settles: at most one uncovered request per account at a time. An unlimited token's balance is
 * charged but never checked (its budget is). Synchronous, so atomic within one process.
 */
export function tryHold(
  user: Balance,
  token: Balance | undefined,
  ask: HoldAsk,
  tokenUnlimited = false,
  nowMs = Date.now(),
): Hold | HoldRefusal | BudgetRefusal {
  const { need, amount } = ask;
  if (!admits(user.available, need)) return 'user';
  const tokenChecked = !!token && !tokenUnlimited;
  if (token && tokenChecked && !admits(token.available, need)) return 'token';
  if (user.budget?.active && !user.budget.admits(need, nowMs)) return 'user_budget';
  if (token?.budget?.active && !token.budget.admits(need, nowMs)) return 'token_budget';
  user.held += amount;
  if (token) token.held += amount;
  const userEnd = user.budget?.take(amount) ?? 0;
  const tokenEnd = token?.budget?.take(amount) ?? 0;
  return { amount, user, token, tokenChecked, done: false, userEnd, tokenEnd };
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
 * The charge of a request that cost `quota`, within the bound that keeps every limit at most one request's
 * cost below zero. Up to its hold a request is always charged in full (the hold reserved it). Beyond its hold
 * (the upstream counted more than the gateway's bound), it is charged in full while every limit it was checked
 * against still has something left besides this hold; once one is spent (other requests already went past it),
 * the charge stops at the hold, and the difference is reported as unbilled.
 */
export function chargeWithin(hold: Hold, quota: number, nowMs = Date.now()): number {
  if (quota <= hold.amount) return quota;
  const room = (left: number) => left + hold.amount > 0;
  const periodRoom = (budget: Balance['budget'], end: number | undefined) => {
    if (!end || !budget?.active) return true;
    const left = budget.available(nowMs);
    // A period that has renewed since the hold keeps no figures to check against: at most the hold.
    return end === budget.end && room(left);
  };
  const fits =
    room(hold.user.available) &&
    (!hold.tokenChecked || !hold.token || room(hold.token.available)) &&
    periodRoom(hold.user.budget, hold.userEnd) &&
    periodRoom(hold.token?.budget, hold.tokenEnd);
  return fits ? quota : hold.amount;
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
