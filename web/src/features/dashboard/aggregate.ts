import dayjs from 'dayjs';

export interface QuotaDataRow {
  model_name: string;
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
  username?: string;
}

export type Granularity = 'hour' | 'day' | 'week';

const FORMAT: Record<Granularity, string> = { hour: 'MM-DD HH:00', day: 'YYYY-MM-DD', week: 'YYYY-MM-DD' };

/** The default window for a granularity: 24 hours, 7 days or 30 days, ending an hour from now. */
export function defaultRange(g: Granularity): [number, number] {
  const end = dayjs().add(1, 'hour');
  const start =
    g === 'hour' ? end.subtract(24, 'hour') : g === 'day' ? end.subtract(7, 'day') : end.subtract(30, 'day');
  return [start.unix(), end.unix()];
}

export function bucketLabel(ts: number, g: Granularity): string {
  return dayjs.unix(ts).startOf(g).format(FORMAT[g]);
}

/** Sums rows per time bucket and model: the buckets in time order, the models by total quota. */
export function aggregate(rows: QuotaDataRow[], g: Granularity) {
  const buckets: string[] = [];
  const byModel = new Map<
    string,
    { quota: Map<string, number>; count: Map<string, number>; totalQuota: number; totalCount: number }
  >();
  const totals = { quota: 0, count: 0, tokens: 0 };
  for (const r of [...rows].sort((a, b) => a.created_at - b.created_at)) {
    const label = bucketLabel(r.created_at, g);
    if (buckets[buckets.length - 1] !== label && !buckets.includes(label)) buckets.push(label);
    const m = byModel.get(r.model_name) ?? {
      quota: new Map(),
      count: new Map(),
      totalQuota: 0,
      totalCount: 0,
    };
    byModel.set(r.model_name, m);
    m.quota.set(label, (m.quota.get(label) ?? 0) + Number(r.quota));
    m.count.set(label, (m.count.get(label) ?? 0) + Number(r.count));
    m.totalQuota += Number(r.quota);
    m.totalCount += Number(r.count);
    totals.quota += Number(r.quota);
    totals.count += Number(r.count);
    totals.tokens += Number(r.token_used);
  }
  const models = [...byModel.entries()].sort((a, b) => b[1].totalQuota - a[1].totalQuota);
  return { buckets, models, totals };
}
