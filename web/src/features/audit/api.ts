import { api } from '../../api/client.ts';

/** One row's change: the fields that differ as [before, after]; secrets read "[redacted]". */
export interface AuditChange {
  entity: string;
  id: string;
  op: 'create' | 'update' | 'delete' | 'action';
  fields: Record<string, [unknown, unknown]>;
}

export interface AuditEntry {
  seq: number;
  created_at: number;
  user_id: number;
  username: string;
  role: number;
  ip: string;
  method: string;
  path: string;
  action: string;
  entity: string;
  target: string;
  status: number;
  changes: AuditChange[];
  hash: string;
  prev_hash: string;
}

export interface AuditFilters {
  username?: string;
  entity?: string;
  target?: string;
  action?: string;
  start_timestamp?: number;
  end_timestamp?: number;
}

export interface AuditVerify {
  ok: boolean;
  checked: number;
  firstSeq: number;
  lastSeq: number;
  problems: Array<{ seq: number; reason: string }>;
}

/** The entities the gateway records changes of (the filter's choices). */
export const AUDIT_ENTITIES = ['option', 'channel', 'user', 'token', 'redemption', 'config', 'log'] as const;

export const listAudit = (filters: AuditFilters, p: number, pageSize: number) =>
  api.get<{ items: AuditEntry[]; total: number; page: number; page_size: number }>('/api/audit/', {
    ...filters,
    p,
    page_size: pageSize,
  });

export const verifyAudit = () => api.get<AuditVerify>('/api/audit/verify');
