/**
 * When a periodic budget renews. A rule is a period (daily, weekly, monthly, or a custom number of days) and one
 * renewal given as a wall-clock date and time in the server's time zone (`TZ`); every other renewal follows from
 * it: the same time every day, every 7 days, the same day of every month (the month's last day when it is
 * shorter), or every n days. Times are local wall-clock times, so a daily budget renews at 00:00 on both sides of
 * a daylight-saving change.
 */

export const BUDGET_PERIODS = ['daily', 'weekly', 'monthly', 'custom'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** The longest custom period, in days (ten years). */
export const MAX_BUDGET_DAYS = 3650;

/** A local date and time to the minute; `month` from 0. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

export interface BudgetRule {
  period: BudgetPeriod;
  /** Days per period: 1, 7, the custom length; unused for monthly. */
  days: number;
  anchor: LocalTime;
}

/** A budget as stored on a token or user row. */
export interface BudgetColumns {
  budget_quota: number;
  budget_period: string;
  budget_period_days: number;
  budget_reset_time: string;
  budget_used: number;
  budget_reset_at: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "YYYY-MM-DD HH:mm", the stored form of an anchor. */
export function formatLocal(t: LocalTime): string {
  return `${t.year}-${pad(t.month + 1)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}`;
}

const localOf = (d: Date): LocalTime => ({
  year: d.getFullYear(),
  month: d.getMonth(),
  day: d.getDate(),
  hour: d.getHours(),
  minute: d.getMinutes(),
});

const TIME = /^(\d{1,2}):(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::00)?$/;

/**
 * Reads a reset time: "HH:mm" (today's date in the server's zone; the time is what matters for a daily budget)
 * or "YYYY-MM-DD HH:mm" (also with a T, and ":00" seconds). Null when it does not parse or names no real date.
 */
export function parseResetTime(text: string, nowMs: number): LocalTime | null {
  const s = text.trim();
  const time = TIME.exec(s);
  if (time) {
    const today = localOf(new Date(nowMs));
    return checked({ ...today, hour: Number(time[1]), minute: Number(time[2]) });
  }
  const full = DATE_TIME.exec(s);
  if (!full) return null;
  return checked({
    year: Number(full[1]),
    month: Number(full[2]) - 1,
    day: Number(full[3]),
    hour: Number(full[4]),
    minute: Number(full[5]),
  });
}

function checked(t: LocalTime): LocalTime | null {
  if (t.year < 1970 || t.year > 9999 || t.hour > 23 || t.minute > 59 || t.month > 11) return null;
  const daysInMonth = new Date(t.year, t.month + 1, 0).getDate();
  if (t.day < 1 || t.day > daysInMonth) return null;
  return t;
}

const isPeriod = (p: string): p is BudgetPeriod => (BUDGET_PERIODS as readonly string[]).includes(p);

/** The rule a row's columns describe, or null when the row has no (valid) budget. */
export function ruleOf(
  row: Pick<BudgetColumns, 'budget_quota' | 'budget_period' | 'budget_period_days' | 'budget_reset_time'>,
): BudgetRule | null {
  if (!(Number(row.budget_quota) > 0) || !isPeriod(row.budget_period)) return null;
  // Stored times carry their date; a bare "HH:mm" (written by hand) is read on a fixed day.
  const anchor = parseResetTime(row.budget_reset_time || '00:00', Date.UTC(2000, 0, 3, 12));
  if (!anchor) return null;
  const days =
    row.budget_period === 'daily'
      ? 1
      : row.budget_period === 'weekly'
        ? 7
        : Math.trunc(Number(row.budget_period_days));
  if (row.budget_period === 'custom' && !(days >= 1 && days <= MAX_BUDGET_DAYS)) return null;
  return { period: row.budget_period, days, anchor };
}

/** The k-th renewal after (negative: before) the anchor, in ms. */
function renewal(rule: BudgetRule, k: number): number {
  const a = rule.anchor;
  if (rule.period === 'monthly') {
    const first = new Date(a.year, a.month + k, 1);
    const y = first.getFullYear();
    const m = first.getMonth();
    const last = new Date(y, m + 1, 0).getDate();
    return new Date(y, m, Math.min(a.day, last), a.hour, a.minute).getTime();
  }
  return new Date(a.year, a.month, a.day + k * rule.days, a.hour, a.minute).getTime();
}

const AVERAGE_MONTH_MS = 30.436875 * 86_400_000;

/** The period that contains `nowMs`: its start and end in unix seconds (start inclusive, end exclusive). */
export function periodAt(rule: BudgetRule, nowMs: number): { start: number; end: number } {
  const length = rule.period === 'monthly' ? AVERAGE_MONTH_MS : rule.days * 86_400_000;
  let k = Math.floor((nowMs - renewal(rule, 0)) / length);
  while (renewal(rule, k) > nowMs) k--;
  while (renewal(rule, k + 1) <= nowMs) k++;
  return { start: renewal(rule, k) / 1000, end: renewal(rule, k + 1) / 1000 };
}

/** A renewal time for people: "2025-06-02 00:00 (UTC+08:00)" in the server's zone. */
export function describeRenewal(endSec: number): string {
  const d = new Date(endSec * 1000);
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${formatLocal(localOf(d))} (UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)})`;
}
