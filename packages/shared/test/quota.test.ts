import { describe, expect, it } from 'vitest';
import { abbreviateQuota, formatUsd, ratioColor, renderQuota } from '../src/quota.ts';

describe('quota display', () => {
  it('abbreviates from 10k upwards', () => {
    expect(abbreviateQuota(9999)).toBe('9999');
    expect(abbreviateQuota(12_345)).toBe('12.35k');
    expect(abbreviateQuota(2_500_000)).toBe('2.5M');
    expect(abbreviateQuota(3_000_000_000)).toBe('3B');
  });
  it('shows dollars when currency display is on', () => {
    expect(renderQuota(750_000, { quotaPerUnit: 500_000, displayInCurrency: true })).toBe('$1.50');
  });
  it('never shows a real amount as $0.00', () => {
    const usd = (q: number) => renderQuota(q, { quotaPerUnit: 500_000, displayInCurrency: true });
    expect(usd(8)).toBe('$0.000016');
    expect(usd(1)).toBe('$0.000002');
    expect(usd(13_750)).toBe('$0.0275');
    expect(usd(50_000)).toBe('$0.10');
    expect(usd(0)).toBe('$0.00');
    expect(usd(-50_000)).toBe('-$0.10');
    expect(formatUsd(0.123456)).toBe('$0.1235');
    expect(formatUsd(0.99999)).toBe('$1.00');
    expect(formatUsd(1234.5)).toBe('$1234.50');
  });
  it('colours ratios by threshold', () => {
    expect([ratioColor(6), ratioColor(4), ratioColor(2), ratioColor(1)]).toEqual([
      'red',
      'orange',
      'blue',
      'green',
    ]);
  });
});
