import { api } from '../../api/client.ts';

export type PayMethod = 'zfb' | 'wx';

export interface TopupOrder {
  id: number;
  user_id: number;
  username: string;
  /** Quota credited when paid. */
  amount: number;
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  complete_time: number;
  status: string;
}

export interface Paged<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

export const redeemCode = (key: string) => api.post<number>('/api/user/topup', { key });
export const quoteAmount = (amount: number) =>
  api.post<string>('/api/user/amount', { amount, top_up_code: '' });
/** The signed form fields for the gateway, plus `url` (its submit.php). */
export const createPayment = (amount: number, method: PayMethod) =>
  api.post<Record<string, string> & { url: string }>('/api/user/pay', {
    amount,
    payment_method: method,
    top_up_code: '',
  });
export const listOrders = (p: number, pageSize: number, mine: boolean) =>
  api.get<Paged<TopupOrder>>('/api/user/topup/orders', {
    p,
    page_size: pageSize,
    mine: mine ? 'true' : undefined,
  });
