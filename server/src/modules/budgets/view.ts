import { type BudgetColumns, periodAt, ruleOf } from '../../ledger/budget/rule.ts';

/** A budget as the console API shows it on a token or a user. */
export interface BudgetView {
  /** Quota per period; 0 = no budget. */
  budget_quota: number;
  budget_period: string;
  budget_period_days: number;
  /** One renewal, "YYYY-MM-DD HH:mm" in the server's time zone. */
  budget_reset_time: string;
  /** Spent in the current period (as written by the ledger, up to one batch interval behind). */
  budget_used: number;
  /** Unix seconds of the next renewal; 0 without a budget. */
  budget_renews_at: number;
}

/**
 * The row's budget as of `nowMs`: a row still counting a period that has ended (no traffic since, and the reset
 * job has not run yet) shows the new period, with nothing spent.
 */
export function budgetView(row: BudgetColumns, nowMs = Date.now()): BudgetView {
  const rule = ruleOf(row);
  const end = rule ? periodAt(rule, nowMs).end : 0;
  return {
    budget_quota: Number(row.budget_quota),
    budget_period: row.budget_period ?? '',
    budget_period_days: Number(row.budget_period_days),
    budget_reset_time: row.budget_reset_time ?? '',
    budget_used: end && Number(row.budget_reset_at) === end ? Number(row.budget_used) : 0,
    budget_renews_at: end,
  };
}
