import type { MarginReport, MarginSums } from '@modelgate/shared';
import type { MarginRow } from './rows.ts';

const HOUR = 3600;

const empty = (): MarginSums => ({ count: 0, revenue: 0, cost: 0, uncosted: 0, margin: 0 });

function add(to: MarginSums, r: MarginRow, uncosted: boolean): void {
  to.count += r.count;
  to.revenue += r.quota;
  to.cost += r.cost;
  if (uncosted) to.uncosted += r.quota;
  to.margin = to.revenue - to.uncosted - to.cost;
}

/** A time zone's calendar day of a unix time, as YYYY-MM-DD; throws RangeError for an unknown zone. */
export function dayFormatter(tz: string): (t: number) => string {
  const fmt = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const seen = new Map<number, string>();
  return (t) => {
    let day = seen.get(t);
    if (day === undefined) {
      day = fmt.format(t * 1000);
      seen.set(t, day);
    }
    return day;
  };
}

/**
 * Sums the hourly rows per calendar day (of `tz`, by each hour's first second), channel and model. An hour that
 * ended before `costSince` counts as uncosted; the hour costs began in counts as costed.
 */
export function foldMargin(
  rows: MarginRow[],
  o: { tz: string; costSince: number; channelNames: Map<number, string> },
): MarginReport {
  const dayOf = dayFormatter(o.tz);
  const total = empty();
  const days = new Map<string, MarginSums>();
  const channels = new Map<number, MarginSums>();
  const models = new Map<string, MarginSums>();
  const slot = <K>(m: Map<K, MarginSums>, k: K) => {
    let s = m.get(k);
    if (!s) {
      s = empty();
      m.set(k, s);
    }
    return s;
  };
  for (const r of rows) {
    const uncosted = r.hour + HOUR <= o.costSince;
    add(total, r, uncosted);
    add(slot(days, dayOf(r.hour)), r, uncosted);
    add(slot(channels, r.channel_id), r, uncosted);
    add(slot(models, r.model_name), r, uncosted);
  }
  const byRevenue = (a: MarginSums, b: MarginSums) => b.revenue - a.revenue;
  return {
    ...total,
    cost_since: o.costSince,
    tz: o.tz,
    days: [...days].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([day, s]) => ({ day, ...s })),
    channels: [...channels]
      .map(([id, s]) => ({ channel_id: id, channel_name: o.channelNames.get(id) ?? '', ...s }))
      .sort(byRevenue),
    models: [...models].map(([name, s]) => ({ model_name: name, ...s })).sort(byRevenue),
  };
}
