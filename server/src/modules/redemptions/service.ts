import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { creditUser, describeQuota, LedgerLogType, ledgerTransaction } from '../../ledger/credit.ts';
import type { AttemptLimiter } from './attempts.ts';
import { claimCode } from './store.ts';

const REFUSALS = {
  invalid: '兑换失败，无效的兑换码',
  disabled: '兑换失败，该兑换码已被禁用',
  used: '兑换失败，该兑换码已被使用',
} as const;

/**
 * Redeems a code for a user: the code is marked used and the quota credited (with its top-up log row) in one
 * transaction, so a code pays out once however many requests race for it. Returns the quota added.
 */
export async function redeem(
  ctx: AppContext,
  limiter: AttemptLimiter,
  userId: number,
  rawKey: string,
  ip: string,
): Promise<number> {
  const key = rawKey.trim();
  if (!key) throw new ApiError('请输入兑换码！', 400, 'redeem_empty');
  if (await limiter.blocked(userId))
    throw new ApiError('兑换失败次数过多，请稍后再试', 429, 'redeem_too_many');
  try {
    return await ledgerTransaction(ctx, async (tx) => {
      const claim = await claimCode(tx.trx, key, userId);
      if (!claim.ok) throw new ApiError(REFUSALS[claim.reason], 400, `redeem_${claim.reason}`);
      const { quota, id } = claim.code;
      await creditUser(
        ctx,
        {
          userId,
          delta: Number(quota),
          logType: LedgerLogType.Topup,
          content: `通过兑换码充值 ${describeQuota(ctx, Number(quota))}，兑换码ID ${id}`,
          other: { content_code: 'redeem', redemption_id: Number(id) },
          ip,
        },
        tx,
      );
      return Number(quota);
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) await limiter.fail(userId);
    throw err;
  }
}
