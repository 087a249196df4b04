import { createHash } from 'node:crypto';
import type { AuditLogsTable } from '../../db/schema.ts';

/** The hash before the first row of the chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** A row as hashed: everything but `hash` itself. */
export type AuditContent = Omit<AuditLogsTable, 'hash'>;

/**
 * SHA-256 over the row's fields in a fixed order, `prev_hash` included, so the hash of each row depends on every
 * row before it: an edit anywhere changes that row's hash and breaks the next row's link.
 */
export function auditHash(row: AuditContent): string {
  const fields = [
    Number(row.seq),
    Number(row.created_at),
    Number(row.user_id),
    row.username,
    Number(row.role),
    row.ip,
    row.method,
    row.path,
    row.action,
    row.entity,
    row.target,
    Number(row.status),
    row.changes,
    row.prev_hash,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
