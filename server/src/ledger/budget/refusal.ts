import type { AppContext } from '../../context.ts';
import { RelayError } from '../../relay/relay-error.ts';
import type { BudgetRefusal } from '../balance.ts';
import { describeQuota } from '../credit.ts';
import type { Budget } from './budget.ts';
import { describeRenewal } from './rule.ts';

/** Past this wait, a client's own retry loop cannot help: OpenAI's and Anthropic's SDKs read x-should-retry. */
const RETRY_IS_USELESS_SEC = 60;

const PERIOD_WORDS: Record<string, string> = {
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  custom: 'periodic',
};

/**
 * The refusal of a request that would pass a periodic budget: 429, because the same request succeeds once the
 * budget renews (a spent lifetime quota stays a 403 until someone adds quota). The message names the renewal
 * time in the server's zone; `retry-after` gives the seconds until then. Rendered in the caller's protocol like
 * every RelayError.
 */
export function budgetExceeded(
  ctx: AppContext,
  budget: Budget,
  who: BudgetRefusal,
  nowMs: number,
): RelayError {
  const whose = who === 'user_budget' ? "your account's" : "this API key's";
  const period = PERIOD_WORDS[budget.rule?.period ?? ''] ?? 'periodic';
  const err = new RelayError(
    429,
    `budget exceeded: ${whose} ${period} budget of ${describeQuota(ctx, budget.limit)} is used up; it renews at ${describeRenewal(budget.end)}`,
    'insufficient_quota',
    'budget_exceeded',
  );
  const wait = Math.max(1, Math.ceil(budget.end - nowMs / 1000));
  err.headers = { 'retry-after': String(wait) };
  if (wait > RETRY_IS_USELESS_SEC) err.headers['x-should-retry'] = 'false';
  return err;
}
