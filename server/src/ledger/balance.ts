/**
 * One account's spendable quota as the hot path sees it: the last value read from the database, minus
 * charges settled but not yet written (`pending`), minus amounts held for requests in flight (`held`).
 */
export class Balance {
  pending = 0;
  held = 0;
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
export interface Hold {
  amount: number;
  user: Balance;
  /** Absent for the playground, which spends the user's quota only. */
  token?: Balance;
  done: boolean;
}

export type HoldRefusal = 'user' | 'token';

/**
 * Reserves `amount` on the user and the token, or refuses without touching either; an unlimited token is
 * charged but never checked. Synchronous, so atomic within one process.
 */
export function tryHold(
  user: Balance,
  token: Balance | undefined,
  amount: number,
  tokenUnlimited = false,
): Hold | HoldRefusal {
  if (user.available <= 0 || user.available < amount) return 'user';
  if (token && !tokenUnlimited && (token.available <= 0 || token.available < amount)) return 'token';
  user.held += amount;
  if (token) token.held += amount;
  return { amount, user, token, done: false };
}

/** Gives back what was held (the request failed before anything was produced). */
export function release(hold: Hold): void {
  if (hold.done) return;
  hold.done = true;
  hold.user.held -= hold.amount;
  if (hold.token) hold.token.held -= hold.amount;
}

/** Turns a hold into the real charge: the hold is released and `quota` becomes pending until the writer flushes. */
export function settleHold(hold: Hold, quota: number): boolean {
  if (hold.done) return false;
  release(hold);
  hold.user.pending += quota;
  if (hold.token) hold.token.pending += quota;
  return true;
}
