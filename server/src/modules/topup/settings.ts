import { ApiError } from '../../infra/envelope.ts';
import type { OptionStore } from '../options/store.ts';

/** The payment options (the settings page's payment section) as the top-up code reads them. */
export interface PaymentSettings {
  payAddress: string;
  epayId: string;
  epayKey: string;
  serverAddress: string;
  callbackAddress: string;
  price: number;
  minTopUp: number;
  groupRatio: Record<string, unknown>;
  quotaPerUnit: number;
  displayInCurrency: boolean;
}

const trimSlash = (s: string) => s.trim().replace(/\/+$/, '');

export function paymentSettings(options: OptionStore): PaymentSettings {
  const ratio = options.json<unknown>('TopupGroupRatio');
  return {
    payAddress: trimSlash(options.get('PayAddress')),
    epayId: options.get('EpayId').trim(),
    epayKey: options.get('EpayKey'),
    serverAddress: trimSlash(options.get('ServerAddress')),
    callbackAddress: trimSlash(options.get('CustomCallbackAddress')),
    price: options.float('Price'),
    minTopUp: options.int('MinTopUp'),
    groupRatio:
      ratio && typeof ratio === 'object' && !Array.isArray(ratio) ? (ratio as Record<string, unknown>) : {},
    quotaPerUnit: options.float('QuotaPerUnit') || 500_000,
    displayInCurrency: options.bool('DisplayInCurrencyEnabled'),
  };
}

/** Online top-up works only when the gateway address, merchant id and key, and our own address are all set. */
export const onlineTopupEnabled = (s: PaymentSettings) =>
  Boolean(s.payAddress && s.epayId && s.epayKey && s.serverAddress);

/** The smallest amount a user may enter, in the units the console shows (dollars, or quota). */
export const minAmount = (s: PaymentSettings) =>
  s.displayInCurrency ? s.minTopUp : s.minTopUp * s.quotaPerUnit;

/** Two-decimal rounding that is not fooled by binary fractions (7.3 * 100 = 729.9999...). */
const round2 = (x: number) => Math.round(Number((x * 100).toPrecision(12))) / 100;

export interface Quote {
  /** Quota credited when the payment succeeds (an integer). */
  quota: number;
  /** Money to pay, two decimals. */
  money: number;
}

/**
 * What `amount` costs for a user of `group`. The amount is in dollars when the console shows currency, else
 * in quota. Money = dollars x Price x TopupGroupRatio[group] (missing or non-positive ratio = 1).
 */
export function quoteTopup(s: PaymentSettings, amount: number, group: string): Quote {
  const min = minAmount(s);
  if (amount < min) throw new ApiError(`充值数量不能小于 ${min}`);
  const dollars = s.displayInCurrency ? amount : amount / s.quotaPerUnit;
  const quota = s.displayInCurrency ? Math.round(amount * s.quotaPerUnit) : amount;
  const r = Number(s.groupRatio[group]);
  const ratio = Number.isFinite(r) && r > 0 ? r : 1;
  const money = round2(dollars * s.price * ratio);
  if (money < 0.01) throw new ApiError('充值金额过低');
  if (!Number.isSafeInteger(quota)) throw new ApiError('充值数量过大');
  return { quota, money };
}
