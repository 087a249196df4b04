/**
 * Revenue (quota charged), upstream cost and margin of some requests, in quota, as `GET /api/log/margin`
 * answers them. `uncosted` is the revenue of requests logged before costs were recorded: their cost is
 * unknown, so the margin leaves them out (margin = revenue - uncosted - cost).
 */
export interface MarginSums {
  count: number;
  revenue: number;
  cost: number;
  uncosted: number;
  margin: number;
}

export interface MarginReport extends MarginSums {
  /** Unix seconds from which requests carry their cost. */
  cost_since: number;
  /** The time zone the days are counted in. */
  tz: string;
  days: Array<MarginSums & { day: string }>;
  channels: Array<MarginSums & { channel_id: number; channel_name: string }>;
  models: Array<MarginSums & { model_name: string }>;
}
