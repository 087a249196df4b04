import { api } from '../../api/client.ts';

export type Verdict = 'pass' | 'fail' | 'skip';
export interface CompatCell {
  verdict: Verdict;
  reason: string;
  code?: string;
}

/** One compatibility check of a channel: script -> client format -> verdict. */
export interface CompatRun {
  id: number;
  channel_id: number;
  created_at: number;
  user_id: number;
  trigger: 'manual' | 'schedule';
  model: string;
  estimated_quota: number;
  charged_quota: number;
  passed: number;
  failed: number;
  results: Record<string, Record<string, CompatCell>>;
}

export interface CompatLayout {
  scripts: string[];
  formats: string[];
}

export interface CompatEstimate extends CompatLayout {
  model: string;
  requests: number;
  quota: number;
  perCall: boolean;
}

export const compatEstimate = (id: number) => api.get<CompatEstimate>(`/api/channel/compat/${id}/estimate`);
export const compatLatest = (id: number) =>
  api.get<CompatLayout & { run: CompatRun | null }>(`/api/channel/compat/${id}`);
export const runCompat = (id: number) =>
  api.post<CompatLayout & { run: CompatRun }>(`/api/channel/compat/${id}/run`);
