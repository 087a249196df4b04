import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../src/ledger/budget/budget.ts';
import {
  type BudgetColumns,
  describeRenewal,
  parseResetTime,
  periodAt,
  ruleOf,
} from '../src/ledger/budget/rule.ts';

/**
 * When budgets renew, read in the server's time zone. New York is used on purpose: it has daylight saving, so
 * a day is 23 or 25 hours twice a year and a daily budget must still renew at local midnight.
 */
const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  process.env.TZ = zone;
});

const local = (y: number, mo: number, d: number, h = 0, mi = 0) => new Date(y, mo - 1, d, h, mi).getTime();
const sec = (ms: number) => ms / 1000;

function rule(period: string, reset: string, days = 0) {
  const r = ruleOf({
    budget_quota: 1,
    budget_period: period,
    budget_period_days: days,
    budget_reset_time: reset,
  });
  if (!r) throw new Error(`no rule for ${period} ${reset}`);
  return r;
}

describe('budget periods', () => {
  it('renews a daily budget at the reset time, also across daylight-saving changes', () => {
    const daily = rule('daily', '2025-01-01 00:00');
    // 2025-03-09: clocks go from 02:00 to 03:00 in New York, the day has 23 hours.
    const p = periodAt(daily, local(2025, 3, 9, 12));
    expect(p).toEqual({ start: sec(local(2025, 3, 9)), end: sec(local(2025, 3, 10)) });
    expect(p.end - p.start).toBe(23 * 3600);
    // 2025-11-02: 25 hours.
    const q = periodAt(daily, local(2025, 11, 2, 23, 59));
    expect(q.end - q.start).toBe(25 * 3600);
    // Exactly at the reset, the new period has begun.
    expect(periodAt(daily, local(2025, 3, 10)).start).toBe(sec(local(2025, 3, 10)));
    const nine = rule('daily', '2025-01-01 09:30');
    expect(periodAt(nine, local(2025, 6, 1, 8))).toEqual({
      start: sec(local(2025, 5, 31, 9, 30)),
      end: sec(local(2025, 6, 1, 9, 30)),
    });
  });

  it('renews weekly on the weekday and time of the reset, and every n days for a custom period', () => {
    const weekly = rule('weekly', '2025-01-06 09:00'); // a Monday
    expect(periodAt(weekly, local(2025, 6, 4, 12))).toEqual({
      start: sec(local(2025, 6, 2, 9)),
      end: sec(local(2025, 6, 9, 9)),
    });
    const tenDays = rule('custom', '2025-01-01 00:00', 10);
    expect(periodAt(tenDays, local(2025, 1, 25))).toEqual({
      start: sec(local(2025, 1, 21)),
      end: sec(local(2025, 1, 31)),
    });
    // A reset time in the future still splits time before it into periods.
    expect(periodAt(tenDays, local(2024, 12, 30))).toEqual({
      start: sec(local(2024, 12, 22)),
      end: sec(local(2025, 1, 1)),
    });
  });

  it('renews monthly on the same day, the last day of shorter months', () => {
    const monthly = rule('monthly', '2025-01-31 00:00');
    expect(periodAt(monthly, local(2025, 2, 10))).toEqual({
      start: sec(local(2025, 1, 31)),
      end: sec(local(2025, 2, 28)),
    });
    expect(periodAt(monthly, local(2025, 3, 1))).toEqual({
      start: sec(local(2025, 2, 28)),
      end: sec(local(2025, 3, 31)),
    });
    expect(periodAt(monthly, local(2024, 2, 29, 1)).start).toBe(sec(local(2024, 2, 29)));
    const first = rule('monthly', '2025-01-01 00:00');
    expect(periodAt(first, local(2030, 7, 15))).toEqual({
      start: sec(local(2030, 7, 1)),
      end: sec(local(2030, 8, 1)),
    });
  });

  it('reads reset times and refuses what does not parse', () => {
    const now = local(2025, 6, 4, 15);
    expect(parseResetTime('08:05', now)).toEqual({ year: 2025, month: 5, day: 4, hour: 8, minute: 5 });
    expect(parseResetTime('2025-02-28 23:59', now)).toMatchObject({ month: 1, day: 28, hour: 23 });
    expect(parseResetTime('2025-02-28T23:59:00', now)).toMatchObject({ day: 28, minute: 59 });
    for (const bad of ['', '24:00', '12:60', '2025-02-29 00:00', '2025-13-01 00:00', 'tomorrow', '1200'])
      expect(parseResetTime(bad, now), bad).toBeNull();
    expect(describeRenewal(sec(local(2025, 6, 2)))).toBe('2025-06-02 00:00 (UTC-04:00)');
    expect(describeRenewal(sec(local(2025, 1, 2)))).toBe('2025-01-02 00:00 (UTC-05:00)');
  });

  it('has no rule without an amount, with an unknown period or a custom period out of range', () => {
    const base = { budget_quota: 5, budget_period: 'daily', budget_period_days: 0, budget_reset_time: '' };
    expect(ruleOf(base)).not.toBeNull();
    expect(ruleOf({ ...base, budget_quota: 0 })).toBeNull();
    expect(ruleOf({ ...base, budget_period: 'hourly' })).toBeNull();
    expect(ruleOf({ ...base, budget_period: 'custom' })).toBeNull();
    expect(ruleOf({ ...base, budget_period: 'custom', budget_period_days: 3 })).not.toBeNull();
  });
});

describe('an in-memory budget', () => {
  const row = (o: Partial<BudgetColumns> = {}): BudgetColumns => ({
    budget_quota: 100,
    budget_period: 'daily',
    budget_period_days: 0,
    budget_reset_time: '2025-01-01 00:00',
    budget_used: 0,
    budget_reset_at: 0,
    ...o,
  });

  it('keeps a hold taken before the renewal on the old period', () => {
    const t0 = local(2025, 6, 4, 23, 59);
    const b = new Budget('token:1');
    b.configure(row({ budget_used: 30, budget_reset_at: sec(local(2025, 6, 5)) }), t0);
    expect(b.available(t0)).toBe(70);
    expect(b.admits(70, t0)).toBe(true);
    const end = b.take(70);
    expect(b.admits(1, t0)).toBe(false);
    const t1 = local(2025, 6, 5, 0, 0) + 1;
    // Renewed: the old period's hold does not use up the new one.
    expect(b.available(t1)).toBe(100);
    b.charge(end, 70);
    b.give(end, 70);
    expect(b.available(t1)).toBe(100);
    const next = b.take(40);
    b.give(next, 40);
    b.charge(next, 40);
    expect(b.available(t1)).toBe(60);
    b.written(end, 70);
    b.written(next, 40);
    expect([b.used, b.pending, b.held]).toEqual([40, 0, 0]);
  });

  it('reads the stored spend only when the row counts the current period', () => {
    const now = local(2025, 6, 4, 12);
    const b = new Budget('user:1');
    b.configure(row({ budget_used: 55, budget_reset_at: sec(local(2025, 6, 4)) }), now);
    expect(b.available(now)).toBe(100);
    b.configure(row({ budget_used: 55, budget_reset_at: sec(local(2025, 6, 5)) }), now);
    expect(b.available(now)).toBe(45);
    b.configure(row({ budget_quota: 0 }), now);
    expect(b.active).toBe(false);
    expect(b.admits(1e12, now)).toBe(true);
  });
});
