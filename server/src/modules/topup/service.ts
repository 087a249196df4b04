import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { creditUser, describeQuota, LedgerLogType, ledgerTransaction } from '../../ledger/credit.ts';
import { EPAY_TYPE, epaySign, epayVerify, type PaymentMethod } from './epay.ts';
import { onlineTopupEnabled, type PaymentSettings, paymentSettings, quoteTopup } from './settings.ts';
import { completeOrder, findOrder, insertOrder, newTradeNo } from './store.ts';

export const NOT_ENABLED = '管理员未开启在线充值！';

function enabledSettings(ctx: AppContext): PaymentSettings {
  const s = paymentSettings(ctx.options);
  if (!onlineTopupEnabled(s)) throw new ApiError(NOT_ENABLED);
  return s;
}

/** The money a user of `group` pays for `amount` (two decimals, as text). */
export function quote(ctx: AppContext, amount: number, group: string): string {
  return quoteTopup(enabledSettings(ctx), amount, group).money.toFixed(2);
}

export interface PayForm {
  url: string;
  params: Record<string, string>;
}

/** Creates a pending order and the signed form the browser posts to the gateway's submit.php. */
export async function createPayment(
  ctx: AppContext,
  user: { id: number; group: string },
  amount: number,
  method: PaymentMethod,
): Promise<PayForm> {
  const s = enabledSettings(ctx);
  const { quota, money } = quoteTopup(s, amount, user.group);
  const tradeNo = newTradeNo(user.id);
  await insertOrder(ctx.db.db, { userId: user.id, quota, money, method, tradeNo });
  const params: Record<string, string> = {
    pid: s.epayId,
    type: EPAY_TYPE[method],
    out_trade_no: tradeNo,
    notify_url: `${s.callbackAddress || s.serverAddress}/api/user/epay/notify`,
    return_url: `${s.serverAddress}/api/user/epay/return`,
    name: `TUC${amount}`,
    money: money.toFixed(2),
  };
  params.sign = epaySign(params, s.epayKey);
  params.sign_type = 'MD5';
  return { url: `${s.payAddress}/submit.php`, params };
}

const cents = (v: number | string) => Math.round(Number(v) * 100);

/**
 * Handles one asynchronous notification from the gateway. Only a correctly signed notice from our merchant
 * id, for a known order and its exact money, credits anything, and the order moves pending -> success in
 * the same transaction as the credit, so repeated or concurrent notices credit once. Returns what Epay
 * expects to read back: "success" (received, do not resend) or "fail".
 */
export async function handleNotify(
  ctx: AppContext,
  params: Record<string, string>,
): Promise<'success' | 'fail'> {
  const s = paymentSettings(ctx.options);
  if (!onlineTopupEnabled(s)) return 'fail';
  if (!epayVerify(params, s.epayKey)) {
    ctx.log.warn({ out_trade_no: params.out_trade_no }, 'epay notify: bad signature');
    return 'fail';
  }
  if (params.pid !== s.epayId) {
    ctx.log.warn({ out_trade_no: params.out_trade_no }, 'epay notify: wrong merchant id');
    return 'fail';
  }
  if (params.trade_status !== 'TRADE_SUCCESS') return 'success';
  const order = params.out_trade_no ? await findOrder(ctx.db.db, params.out_trade_no) : undefined;
  if (!order) {
    ctx.log.warn({ out_trade_no: params.out_trade_no }, 'epay notify: unknown order');
    return 'fail';
  }
  if (!Number.isFinite(Number(params.money)) || cents(params.money) !== cents(order.money)) {
    ctx.log.warn(
      { out_trade_no: order.trade_no, paid: params.money, expected: order.money },
      'epay notify: money does not match the order',
    );
    return 'fail';
  }
  await ledgerTransaction(ctx, async (tx) => {
    if (!(await completeOrder(tx.trx, Number(order.id)))) return;
    const quota = Number(order.amount);
    await creditUser(
      ctx,
      {
        userId: Number(order.user_id),
        delta: quota,
        logType: LedgerLogType.Topup,
        content: `使用在线充值成功，充值金额: ${describeQuota(ctx, quota)}，支付金额：${Number(order.money).toFixed(2)}`,
        other: {
          content_code: 'topup_online',
          trade_no: order.trade_no,
          money: Number(order.money),
          payment_method: order.payment_method,
        },
      },
      tx,
    );
  });
  return 'success';
}
