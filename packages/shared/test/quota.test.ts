import { describe, expect, it } from 'vitest';
import { abbreviateQuota, ratioColor, renderQuota } from '../src/quota.ts';

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
  it('colours ratios by threshold', () => {
    expect([ratioColor(6), ratioColor(4), ratioColor(2), ratioColor(1)]).toEqual([
      'red',
      'orange',
      'blue',
      'green',
    ]);
  });
});
