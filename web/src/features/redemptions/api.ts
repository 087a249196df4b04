import { api } from '../../api/client.ts';

export interface Redemption {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
}

export interface Paged<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

export const listRedemptions = (p: number, pageSize: number, keyword: string) =>
  keyword
    ? api.get<Paged<Redemption>>('/api/redemption/search', { keyword, p, page_size: pageSize })
    : api.get<Paged<Redemption>>('/api/redemption/', { p, page_size: pageSize });

export const createRedemptions = (body: { name: string; quota: number; count: number }) =>
  api.post<string[]>('/api/redemption/', body);
export const updateRedemption = (body: { id: number; name: string; quota: number }) =>
  api.put<Redemption>('/api/redemption/', body);
export const setRedemptionStatus = (id: number, status: 1 | 2) =>
  api.put<Redemption>('/api/redemption/?status_only=true', { id, status });
export const deleteRedemption = (id: number) => api.del<void>(`/api/redemption/${id}/`);
