import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The Epay ("易支付") signature: drop `sign`, `sign_type` and empty values, sort the rest by key, join as
 * k=v with &, append the merchant key with no separator, and take the lower-case hex MD5.
 */
export function epaySign(params: Record<string, string | undefined>, key: string): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

export function epayVerify(params: Record<string, string | undefined>, key: string): boolean {
  const given = params.sign;
  if (!given || !/^[0-9a-fA-F]{32}$/.test(given)) return false;
  const expected = Buffer.from(epaySign(params, key), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}

/** Epay's payment type names for the console's method codes. */
export const EPAY_TYPE = { zfb: 'alipay', wx: 'wxpay' } as const;
export type PaymentMethod = keyof typeof EPAY_TYPE;
