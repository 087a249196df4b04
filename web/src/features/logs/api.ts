import { api } from '../../api/client.ts';

export interface LogItem {
  id: number;
  created_at: number;
  type: number;
  content: string;
  user_id: number;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Whole seconds. */
  use_time: number;
  /** Milliseconds to the first token (streams). */
  first_time: number;
  is_stream: boolean;
  group: string;
  request_id: string;
  /** JSON text; see billing.ts. */
  other: string;
  /** Admin lists only. */
  channel?: number;
  /** Upstream cost in quota (admin lists only). */
  cost?: number;
  channel_name?: string;
  ip?: string;
}

export interface LogPage {
  items: LogItem[];
  page: number;
  page_size: number;
  total: number;
  /** True when `total` is a lower bound (counting stops at 10,000). */
  total_capped?: boolean;
}

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface LogFilters {
  type: number;
  start_timestamp?: number;
  end_timestamp?: number;
  token_name?: string;
  model_name?: string;
  group?: string;
  username?: string;
  channel?: number;
}

/** A row already shown: the page asked for is then counted from the row after it. */
export interface LogCursor {
  before_time: number;
  before_id: number;
}

export const listLogs = (admin: boolean, f: LogFilters, p: number, pageSize: number, cursor?: LogCursor) =>
  api.get<LogPage>(admin ? '/api/log/' : '/api/log/self/', { ...f, ...cursor, p, page_size: pageSize });

export const logStat = (admin: boolean, f: LogFilters) =>
  api.get<LogStat>(admin ? '/api/log/stat' : '/api/log/self/stat', { ...f });

export interface UserInfo {
  id: number;
  username: string;
  display_name: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  email?: string;
}
export const getUser = (id: number) => api.get<UserInfo>(`/api/user/${id}`);
