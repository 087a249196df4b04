import { z } from 'zod';
import { ApiError } from '../../infra/envelope.ts';
import {
  BUDGET_PERIODS,
  type BudgetColumns,
  formatLocal,
  MAX_BUDGET_DAYS,
  parseResetTime,
  periodAt,
  ruleOf,
} from '../../ledger/budget/rule.ts';

const PERIOD_LIST = BUDGET_PERIODS.join(', ');
const RESET_TIME_FORMAT = 'budget_reset_time must be a time "HH:mm" or a date and time "YYYY-MM-DD HH:mm"';

/**
 * The budget fields a token (its owner) or a user (an administrator) may send; all optional, left-out fields
 * keep their values. Each is checked on its own here and together in `budgetChanges`.
 */
export const budgetInput = {
  // The size check comes first: zod's int() also refuses integers past 2^53, which would read "not whole".
  budget_quota: z
    .number({ error: 'budget_quota must be a whole number of quota' })
    .max(Number.MAX_SAFE_INTEGER, `budget_quota is too large (at most ${Number.MAX_SAFE_INTEGER})`)
    .int('budget_quota must be a whole number of quota')
    .min(0, 'budget_quota cannot be negative (0 means no budget)')
    .optional(),
  budget_period: z
    .string({ error: `budget_period must be one of ${PERIOD_LIST}` })
    .trim()
    .refine(
      (p) => p === '' || (BUDGET_PERIODS as readonly string[]).includes(p),
      `budget_period must be one of ${PERIOD_LIST}`,
    )
    .optional(),
  budget_period_days: z
    .number({ error: 'budget_period_days must be a whole number of days' })
    .int('budget_period_days must be a whole number of days')
    .min(0, 'budget_period_days cannot be negative')
    .max(MAX_BUDGET_DAYS, `budget_period_days must be at most ${MAX_BUDGET_DAYS}`)
    .optional(),
  budget_reset_time: z.string({ error: RESET_TIME_FORMAT }).trim().max(25, RESET_TIME_FORMAT).optional(),
};

export type BudgetInput = {
  [K in keyof typeof budgetInput]?: z.infer<(typeof budgetInput)[K]>;
};

/** The budget columns of a row that never had one. */
export const NO_BUDGET: BudgetColumns = {
  budget_quota: 0,
  budget_period: '',
  budget_period_days: 0,
  budget_reset_time: '',
  budget_used: 0,
  budget_reset_at: 0,
};

/**
 * The columns to write for `input` over the row's current budget, or a 400 naming what is wrong (nothing is
 * written then). A budget whose current period ends at the same time as before keeps what it spent (the amount
 * or the wording of the reset time changed); a budget whose period changed starts the new one with nothing spent.
 */
export function budgetChanges(
  current: BudgetColumns,
  input: BudgetInput,
  nowMs: number,
): Partial<BudgetColumns> {
  const touched = (Object.keys(budgetInput) as Array<keyof BudgetInput>).some((k) => input[k] !== undefined);
  if (!touched) return {};
  const quota = input.budget_quota ?? Number(current.budget_quota);
  const period = input.budget_period ?? current.budget_period;
  let days = input.budget_period_days ?? Number(current.budget_period_days);
  if (quota > 0 && period === '')
    throw new ApiError(`budget_period must be one of ${PERIOD_LIST} when budget_quota is set`);
  if (period === 'custom' && !(days >= 1 && days <= MAX_BUDGET_DAYS))
    throw new ApiError(
      `budget_period_days must be a whole number of days from 1 to ${MAX_BUDGET_DAYS} for a custom period`,
    );
  if (period !== 'custom') days = 0;
  const resetText = input.budget_reset_time ?? (current.budget_reset_time || '00:00');
  const anchor = parseResetTime(resetText || '00:00', nowMs);
  if (!anchor) throw new ApiError(`${RESET_TIME_FORMAT}; got "${resetText}"`);
  const next: BudgetColumns = {
    budget_quota: quota,
    budget_period: period,
    budget_period_days: days,
    budget_reset_time: formatLocal(anchor),
    budget_used: Number(current.budget_used),
    budget_reset_at: Number(current.budget_reset_at),
  };
  const rule = ruleOf(next);
  const end = rule ? periodAt(rule, nowMs).end : 0;
  if (end !== next.budget_reset_at) {
    next.budget_used = 0;
    next.budget_reset_at = end;
  }
  return next;
}
