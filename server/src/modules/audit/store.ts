import { isUniqueViolation } from '../../db/errors.ts';
import type { Db } from '../../db/index.ts';
import type { AuditLogsTable } from '../../db/schema.ts';
import { containsLike } from '../../infra/like.ts';
import { type AuditContent, auditHash, GENESIS_HASH } from './chain.ts';
import type { AuditChange } from './diff.ts';

/** Who did what, before the chain's fields are added. */
export interface AuditEntry {
  userId: number;
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
  /** Unix seconds; now by default. */
  at?: number;
}

const MAX_ATTEMPTS = 20;

/**
 * Appends one entry at the end of the chain: seq and prev_hash from the last row, hash over both. A writer that
 * loses the race for a seq (another request, another instance) hits the primary key and takes the next place.
 */
export async function appendAudit(handle: Db, entry: AuditEntry): Promise<AuditLogsTable> {
  for (let attempt = 0; ; attempt++) {
    const last = await handle.db
      .selectFrom('audit_logs')
      .select(['seq', 'hash'])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const content: AuditContent = {
      seq: Number(last?.seq ?? 0) + 1,
      created_at: entry.at ?? Math.floor(Date.now() / 1000),
      user_id: entry.userId,
      username: entry.username.slice(0, 64),
      role: entry.role,
      ip: entry.ip.slice(0, 64),
      method: entry.method.slice(0, 8),
      path: entry.path.slice(0, 191),
      action: entry.action.slice(0, 191),
      entity: entry.entity.slice(0, 32),
      target: entry.target.slice(0, 191),
      status: entry.status,
      changes: JSON.stringify(entry.changes),
      prev_hash: last?.hash ?? GENESIS_HASH,
    };
    const row = { ...content, hash: auditHash(content) };
    try {
      await handle.db.insertInto('audit_logs').values(row).execute();
      return row;
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

export interface AuditFilter {
  userId?: number;
  username?: string;
  entity?: string;
  target?: string;
  action?: string;
  from?: number;
  to?: number;
}

/** A page of entries, newest first, and the total matching the filter. */
export async function listAudit(
  handle: Db,
  filter: AuditFilter,
  page: { offset: number; limit: number },
): Promise<{ items: AuditLogsTable[]; total: number }> {
  let q = handle.db.selectFrom('audit_logs');
  if (filter.userId) q = q.where('user_id', '=', filter.userId);
  if (filter.username) q = q.where('username', '=', filter.username);
  if (filter.entity) q = q.where('entity', '=', filter.entity);
  if (filter.target) q = q.where(containsLike('target', filter.target));
  if (filter.action) q = q.where(containsLike('action', filter.action));
  if (filter.from) q = q.where('created_at', '>=', filter.from);
  if (filter.to) q = q.where('created_at', '<=', filter.to);
  const [items, count] = await Promise.all([
    q.selectAll().orderBy('seq', 'desc').offset(page.offset).limit(page.limit).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { items, total: Number(count?.n ?? 0) };
}
