import { type BudgetColumns, type BudgetRule, periodAt, ruleOf } from './rule.ts';

/**
 * One token's or user's periodic budget as the hot path sees it, beside its lifetime `Balance`.
 *
 * A charge belongs to the period in which its hold was taken (the request started): the hold remembers that
 * period's end, and its release, settle and durable write all go to that period. A renewal therefore never moves a
 * charge from one period to another: requests still running when the budget renews finish on the old period, and
 * the new period starts with its whole amount.
 *
 * `used` is the period's spend as last read from the database, `pending` what was settled here but not yet
 * written, `held` what requests in flight reserved; all three belong to the period ending at `end` and are
 * emptied when it ends. Available = limit - used - pending - held.
 */
export class Budget {
  /** Quota per period; 0 = no budget. */
  limit = 0;
  rule: BudgetRule | null = null;
  /** Unix seconds: the end of the period the counters below belong to (0 = no budget). */
  end = 0;
  used = 0;
  pending = 0;
  held = 0;

  /** `account` names the balance it sits beside ("user:5", "token:9"). */
  constructor(readonly account: string) {}

  get active(): boolean {
    return this.rule !== null;
  }

  /** Takes the row's budget columns (first load or a console change) without losing what is in flight. */
  configure(row: BudgetColumns, nowMs: number): void {
    this.rule = ruleOf(row);
    this.limit = this.rule ? Number(row.budget_quota) : 0;
    if (!this.rule) {
      this.end = this.used = this.pending = this.held = 0;
      return;
    }
    const { end } = periodAt(this.rule, nowMs);
    if (end !== this.end) {
      this.end = end;
      this.pending = 0;
      this.held = 0;
    }
    // The row counts another (older) period until the writer or the reset job moves it on: nothing spent yet.
    this.used = Number(row.budget_reset_at) === end ? Number(row.budget_used) : 0;
  }

  /** Moves on to the period containing `nowMs` once the current one has ended. */
  private sync(nowMs: number): void {
    if (this.rule && nowMs >= this.end * 1000) {
      this.end = periodAt(this.rule, nowMs).end;
      this.used = this.pending = this.held = 0;
    }
  }

  /** What is left in the period containing `nowMs` (Infinity without a budget). */
  available(nowMs: number): number {
    if (!this.rule) return Number.POSITIVE_INFINITY;
    this.sync(nowMs);
    return this.limit - this.used - this.pending - this.held;
  }

  /** Whether a hold of `amount` fits (a spent budget refuses even a free request). */
  admits(amount: number, nowMs: number): boolean {
    const left = this.available(nowMs);
    return left > 0 && left >= amount;
  }

  /** Reserves `amount` in the current period (call `admits` first); returns the period's end, 0 without a budget. */
  take(amount: number): number {
    if (!this.rule) return 0;
    this.held += amount;
    return this.end;
  }

  /** Gives back a reservation made in the period ending at `end` (nothing when that period is over). */
  give(end: number, amount: number): void {
    if (end !== 0 && end === this.end) this.held -= amount;
  }

  /** A settled charge of the period ending at `end`, pending until the writer commits it. */
  charge(end: number, quota: number): void {
    if (end !== 0 && end === this.end) this.pending += quota;
  }

  /** The writer committed `quota` of the period ending at `end`. */
  written(end: number, quota: number): void {
    if (end !== 0 && end === this.end) {
      this.used += quota;
      this.pending -= quota;
    }
  }

  /** The current period's end for a charge that has no hold of its own (0 without a budget). */
  currentEnd(nowMs: number): number {
    if (!this.rule) return 0;
    this.sync(nowMs);
    return this.end;
  }
}

/** The columns a cache selects to build a budget. */
export const BUDGET_COLUMNS = [
  'budget_quota',
  'budget_period',
  'budget_period_days',
  'budget_reset_time',
  'budget_used',
  'budget_reset_at',
] as const;
