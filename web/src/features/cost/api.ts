import type { MarginReport, MarginSums } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

export type { MarginSums };

/** The usage log filters the margin takes (the log page's, or the dashboard's range). */
export interface MarginFilter {
  start_timestamp?: number;
  end_timestamp?: number;
  model_name?: string;
  channel?: number;
  username?: string;
  token_name?: string;
  group?: string;
}

/** The browser's time zone: days are counted as the reader sees them. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export const marginReport = (f: MarginFilter) =>
  api.get<MarginReport>('/api/log/margin', { ...f, tz: browserZone() });

/** Margin over the revenue whose cost is known, or null when there is none. */
export function marginRate(s: MarginSums): number | null {
  const base = s.revenue - s.uncosted;
  return base > 0 ? s.margin / base : null;
}

export const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);

/** The margin query of a filter, shared by the panel and the log page's tags. */
export const useMargin = (filter: MarginFilter) =>
  useQuery({ queryKey: ['margin', filter], queryFn: () => marginReport(filter) });
