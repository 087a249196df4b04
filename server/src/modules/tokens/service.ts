import { TokenStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { budgetChanges, NO_BUDGET } from '../budgets/fields.ts';
import { newTokenKey, randomAlnum } from './key.ts';
import type { CreateTokenInput, UpdateTokenInput } from './schema.ts';
import {
  findOwnToken,
  insertTokens,
  type NewToken,
  softDeleteToken,
  type TokenRow,
  tokensByIds,
  toView,
  updateToken,
} from './store.ts';

const now = () => Math.floor(Date.now() / 1000);

export const EXPIRED_MESSAGE =
  'this token has expired; change its expiry time or make it never expire before enabling it';
export const EXHAUSTED_MESSAGE =
  'this token has no quota left; raise its remaining quota or make it unlimited before enabling it';

/** Groups a user may put on a token: the UserUsableGroups option plus the user's own group ('' = own group). */
export async function usableGroups(ctx: AppContext, userId: number): Promise<Set<string>> {
  const groups = new Set(Object.keys(ctx.options.json<Record<string, string>>('UserUsableGroups') ?? {}));
  const user = await ctx.db.db
    .selectFrom('users')
    .select('group')
    .where('id', '=', userId)
    .executeTakeFirst();
  if (user?.group) groups.add(user.group);
  return groups;
}

async function checkGroup(ctx: AppContext, userId: number, group: string) {
  if (group === '') return;
  if (!(await usableGroups(ctx, userId)).has(group))
    throw new ApiError(`group "${group}" is not available to you`);
}

const isExpired = (t: Pick<TokenRow, 'expired_time'>) =>
  Number(t.expired_time) !== -1 && Number(t.expired_time) <= now();
const isExhausted = (t: Pick<TokenRow, 'unlimited_quota' | 'remain_quota'>) =>
  Number(t.unlimited_quota) !== 1 && Number(t.remain_quota) <= 0;

export async function createTokens(ctx: AppContext, userId: number, input: CreateTokenInput) {
  await checkGroup(ctx, userId, input.group);
  const budget = { ...NO_BUDGET, ...budgetChanges(NO_BUDGET, input, Date.now()) };
  const t = now();
  const rows: NewToken[] = Array.from({ length: input.count }, (_, i) => ({
    user_id: userId,
    key: newTokenKey(),
    status: TokenStatus.Enabled,
    name: i === 0 ? input.name : `${input.name}-${randomAlnum(6)}`,
    created_time: t,
    accessed_time: t,
    expired_time: input.expired_time,
    remain_quota: input.remain_quota,
    unlimited_quota: input.unlimited_quota ? 1 : 0,
    model_limits_enabled: input.model_limits_enabled ? 1 : 0,
    model_limits: input.model_limits,
    allow_ips: input.allow_ips,
    used_quota: 0,
    group: input.group,
    rpm_limit: input.rpm_limit,
    tpm_limit: input.tpm_limit,
    response_cache: input.response_cache ? 1 : 0,
    ...budget,
  }));
  const ids = await insertTokens(ctx.db, rows);
  await Promise.all(ids.map((id) => ctx.bus.publish(`token:${id}`)));
  return tokensByIds(ctx.db, userId, ids);
}

async function mustFind(ctx: AppContext, userId: number, id: number): Promise<TokenRow> {
  const row = await findOwnToken(ctx.db, userId, id);
  if (!row) throw new ApiError('token not found', 404);
  return row;
}

/**
 * Full or partial update (fields left out stay as they are). A token that was expired or exhausted and is
 * no longer so after the change goes back to enabled; explicitly enabling one that still is, is refused.
 */
export async function updateTokenFields(ctx: AppContext, userId: number, input: UpdateTokenInput) {
  const row = await mustFind(ctx, userId, input.id);
  if (input.expired_time !== undefined && input.expired_time !== Number(row.expired_time)) {
    if (input.expired_time !== -1 && input.expired_time <= now()) {
      throw new ApiError('expired_time must be -1 (never) or a time in the future');
    }
  }
  if (input.group !== undefined && input.group !== row.group) await checkGroup(ctx, userId, input.group);
  if (input.name !== undefined && input.name !== row.name && input.name.length > 50) {
    throw new ApiError('token name must be at most 50 characters');
  }
  const set: Partial<NewToken> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.remain_quota !== undefined) set.remain_quota = input.remain_quota;
  if (input.unlimited_quota !== undefined) set.unlimited_quota = input.unlimited_quota ? 1 : 0;
  if (input.expired_time !== undefined) set.expired_time = input.expired_time;
  if (input.model_limits_enabled !== undefined) set.model_limits_enabled = input.model_limits_enabled ? 1 : 0;
  if (input.model_limits !== undefined) set.model_limits = input.model_limits;
  if (input.allow_ips !== undefined) set.allow_ips = input.allow_ips;
  if (input.group !== undefined) set.group = input.group;
  Object.assign(set, budgetChanges(row, input, Date.now()));
  if (input.rpm_limit !== undefined) set.rpm_limit = input.rpm_limit;
  if (input.tpm_limit !== undefined) set.tpm_limit = input.tpm_limit;
  if (input.response_cache !== undefined) set.response_cache = input.response_cache ? 1 : 0;
  const next = { ...row, ...set };
  const status = nextStatus(row, next, input.status);
  if (status !== Number(row.status)) set.status = status;
  if (Object.keys(set).length > 0) await updateToken(ctx.db, userId, row.id, set);
  // Awaited: the relay on this instance follows the edit from the answer on.
  await ctx.bus.publish(`token:${row.id}`);
  return toView({ ...next, status } as TokenRow);
}

function nextStatus(before: TokenRow, after: TokenRow, requested: number | undefined): number {
  const current = Number(before.status);
  if (
    requested === TokenStatus.Enabled ||
    (requested === undefined && (current === TokenStatus.Expired || current === TokenStatus.Exhausted))
  ) {
    if (isExpired(after)) {
      if (requested === TokenStatus.Enabled) throw new ApiError(EXPIRED_MESSAGE);
      return TokenStatus.Expired;
    }
    if (isExhausted(after)) {
      if (requested === TokenStatus.Enabled) throw new ApiError(EXHAUSTED_MESSAGE);
      return current === TokenStatus.Expired ? TokenStatus.Exhausted : current;
    }
    return TokenStatus.Enabled;
  }
  return requested ?? current;
}

export async function setTokenStatus(ctx: AppContext, userId: number, id: number, status: 1 | 2) {
  return updateTokenFields(ctx, userId, { id, status });
}

export async function deleteToken(ctx: AppContext, userId: number, id: number): Promise<void> {
  if (!(await softDeleteToken(ctx.db, userId, id))) throw new ApiError('token not found', 404);
  await ctx.bus.publish(`token:${id}`);
}

export { mustFind as findTokenOr404 };
