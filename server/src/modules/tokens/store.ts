import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { TokensTable } from '../../db/schema.ts';
import { containsLike } from '../../infra/like.ts';
import { type BudgetView, budgetView } from '../budgets/view.ts';

export type TokenRow = Selectable<TokensTable>;

/** A token as the console API sends it: booleans as booleans, the key without `sk-`, its budget's period. */
export interface TokenView extends BudgetView {
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

export function toView(r: TokenRow): TokenView {
  return {
    id: Number(r.id),
    user_id: Number(r.user_id),
    key: r.key,
    status: Number(r.status),
    name: r.name,
    created_time: Number(r.created_time),
    accessed_time: Number(r.accessed_time),
    expired_time: Number(r.expired_time),
    remain_quota: Number(r.remain_quota),
    unlimited_quota: Number(r.unlimited_quota) === 1,
    model_limits_enabled: Number(r.model_limits_enabled) === 1,
    model_limits: r.model_limits ?? '',
    allow_ips: r.allow_ips ?? '',
    used_quota: Number(r.used_quota),
    group: r.group ?? '',
    rpm_limit: Number(r.rpm_limit ?? 0),
    tpm_limit: Number(r.tpm_limit ?? 0),
    response_cache: Number(r.response_cache ?? 0) === 1,
    ...budgetView(r),
  };
}

const own = (h: Db, userId: number) =>
  h.db.selectFrom('tokens').selectAll().where('user_id', '=', userId).where('deleted_at', 'is', null);

export async function listTokens(h: Db, userId: number, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    own(h, userId).orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    h.db
      .selectFrom('tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toView), total: Number(total.n) };
}

export async function searchTokens(h: Db, userId: number, keyword: string, key: string, limit: number) {
  let q = own(h, userId);
  if (keyword) q = q.where(containsLike('name', keyword));
  if (key) q = q.where(containsLike('key', key));
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toView);
}

export async function findOwnToken(h: Db, userId: number, id: number): Promise<TokenRow | undefined> {
  return own(h, userId).where('id', '=', id).executeTakeFirst();
}

export type NewToken = Omit<TokenRow, 'id' | 'deleted_at'>;

export async function insertTokens(h: Db, rows: NewToken[]): Promise<number[]> {
  return h.db.transaction().execute(async (trx) => {
    const ids: number[] = [];
    for (const row of rows) {
      if (h.dialect === 'postgres') {
        const r = await trx.insertInto('tokens').values(row).returning('id').executeTakeFirstOrThrow();
        ids.push(Number(r.id));
      } else {
        const r = await trx.insertInto('tokens').values(row).executeTakeFirstOrThrow();
        ids.push(Number(r.insertId));
      }
    }
    return ids;
  });
}

export async function updateToken(h: Db, userId: number, id: number, set: Partial<NewToken>): Promise<void> {
  await h.db
    .updateTable('tokens')
    .set(set)
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function softDeleteToken(h: Db, userId: number, id: number): Promise<boolean> {
  const r = await h.db
    .updateTable('tokens')
    .set({ deleted_at: Math.floor(Date.now() / 1000) })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function tokensByIds(h: Db, userId: number, ids: number[]) {
  if (ids.length === 0) return [];
  const rows = await own(h, userId).where('id', 'in', ids).orderBy('id', 'asc').execute();
  return rows.map(toView);
}
