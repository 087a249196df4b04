import type { Caller } from '../admit/auth.ts';
import type { RelayState } from '../relay-state.ts';

const UNLIMITED_USD = 100_000_000;

/** Totals as OpenAI's legacy billing API shows them: the token's when DisplayTokenStatEnabled, else the user's. */
async function totals(
  state: RelayState,
  caller: Caller,
): Promise<{ total: number; used: number; unlimited: boolean; until: number }> {
  const { db } = state.ctx.db;
  if (state.ctx.options.bool('DisplayTokenStatEnabled') && caller.token) {
    const t = caller.token;
    const row = await db
      .selectFrom('tokens')
      .select(['used_quota'])
      .where('id', '=', t.id)
      .executeTakeFirst();
    const used = Number(row?.used_quota ?? 0) + t.balance.pending;
    const remain = t.balance.db - t.balance.pending;
    return {
      total: remain + used,
      used,
      unlimited: t.unlimited,
      until: t.expiredTime > 0 ? t.expiredTime : 0,
    };
  }
  const u = caller.user;
  const row = await db.selectFrom('users').select(['used_quota']).where('id', '=', u.id).executeTakeFirst();
  const used = Number(row?.used_quota ?? 0) + u.balance.pending;
  return { total: u.balance.db - u.balance.pending + used, used, unlimited: false, until: 0 };
}

function amount(state: RelayState, quota: number): number {
  return state.ctx.options.bool('DisplayInCurrencyEnabled')
    ? quota / state.ctx.options.float('QuotaPerUnit')
    : quota;
}

export async function billingSubscription(state: RelayState, caller: Caller) {
  const t = await totals(state, caller);
  const limit = t.unlimited ? UNLIMITED_USD : amount(state, t.total);
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    access_until: t.until,
  };
}

export async function billingUsage(state: RelayState, caller: Caller) {
  const t = await totals(state, caller);
  return { object: 'list', total_usage: amount(state, t.used) * 100 };
}
