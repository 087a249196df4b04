/** A budget as the console API returns it on a token or a user. */
export interface BudgetView {
  /** Quota per period; 0 = no budget. */
  budget_quota: number;
  budget_period: '' | BudgetPeriod;
  budget_period_days: number;
  /** One renewal, "YYYY-MM-DD HH:mm" in the gateway's time zone. */
  budget_reset_time: string;
  /** Spent in the current period. */
  budget_used: number;
  /** Unix seconds of the next renewal; 0 without a budget. */
  budget_renews_at: number;
}

export const BUDGET_PERIODS = ['daily', 'weekly', 'monthly', 'custom'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** What the token and user forms send. */
export type BudgetInput = Pick<
  BudgetView,
  'budget_quota' | 'budget_period' | 'budget_period_days' | 'budget_reset_time'
>;
