import { ApiFailure, api, requestEnvelope, withQuery } from '../../api/client.ts';
import type { BudgetInput, BudgetView } from '../budgets/types.ts';

export interface Token extends BudgetView {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  used_quota: number;
  group: string;
  /** Requests and tokens per minute; 0 = no limit. */
  rpm_limit: number;
  tpm_limit: number;
  /** The response cache is on for this token's requests. */
  response_cache: boolean;
}

export interface TokenInput extends BudgetInput {
  name: string;
  remain_quota: number;
  unlimited_quota: boolean;
  expired_time: number;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
  rpm_limit: number;
  tpm_limit: number;
  response_cache: boolean;
}

/** One page (p from 0); the server adds the total beside the list. */
export async function listTokens(p: number, size: number): Promise<{ items: Token[]; total: number }> {
  const env = (await requestEnvelope<Token[]>('GET', withQuery('/api/token/', { p, size }))) as {
    success: boolean;
    message?: string;
    data?: Token[];
    total?: number;
  };
  if (!env.success) throw new ApiFailure(env.message || 'request failed', 200);
  const items = env.data ?? [];
  return { items, total: env.total ?? items.length };
}

export const searchTokens = (keyword: string, token: string) =>
  api.get<Token[]>('/api/token/search', { keyword, token });
export const createTokens = (body: TokenInput & { count: number }) => api.post<Token[]>('/api/token/', body);
export const updateToken = (body: Partial<TokenInput> & { id: number }) =>
  api.put<Token>('/api/token/', body);
export const setTokenStatus = (id: number, status: 1 | 2) =>
  api.put<Token>('/api/token/?status_only=true', { id, status });
export const deleteToken = (id: number) => api.del<void>(`/api/token/${id}/`);
export const fetchUserModels = () => api.get<string[] | null>('/api/user/models');
export const fetchUserGroups = () =>
  api.get<Record<string, { desc: string; ratio: number }>>('/api/user/self/groups');

/** What people copy and paste: the key with its `sk-` prefix. */
export const fullKey = (t: Pick<Token, 'key'>) => `sk-${t.key}`;
