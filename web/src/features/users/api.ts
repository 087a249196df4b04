import { api } from '../../api/client.ts';
import type { BudgetView } from '../budgets/types.ts';

/** A user row as the admin list shows it. */
export interface UserRow extends BudgetView {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
  email: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_count: number;
  aff_history_quota: number;
  inviter_id: number;
  github_id?: string;
  oidc_id?: string;
  wechat_id?: string;
  telegram_id?: string;
  linux_do_id?: string;
  DeletedAt?: string | null;
}

export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
}

export type ManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

export const USERS_KEY = ['users'] as const;

export function listUsers(p: { page: number; pageSize: number; keyword: string; group: string }) {
  const searching = p.keyword.trim() !== '' || p.group !== '';
  return api.get<Paged<UserRow>>(searching ? '/api/user/search' : '/api/user/', {
    keyword: searching ? p.keyword.trim() : undefined,
    group: p.group || undefined,
    p: p.page,
    page_size: p.pageSize,
  });
}

export const manageUser = (id: number, action: ManageAction) =>
  api.post<{ status: number; role: number }>('/api/user/manage', { id, action });

export const listGroups = () => api.get<string[]>('/api/group/');
