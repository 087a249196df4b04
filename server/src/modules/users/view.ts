import { budgetView } from '../budgets/view.ts';
import { parseUserSetting } from './setting.ts';
import type { UserRow } from './store.ts';

/**
 * A user as the console API shows it: never the password or the access-token hash; `setting` as JSON text
 * without the webhook secret (`webhook_secret_set` says whether one is stored); `DeletedAt` null or an
 * ISO time for soft-deleted rows (the admin list shows them as cancelled).
 */
export function userView(row: UserRow) {
  const { password: _p, access_token: _t, deleted_at, setting, budget_reset_at: _r, ...rest } = row;
  const parsed = parseUserSetting(setting);
  const { webhook_secret, ...visibleSetting } = parsed;
  return {
    ...rest,
    id: Number(rest.id),
    quota: Number(rest.quota),
    used_quota: Number(rest.used_quota),
    request_count: Number(rest.request_count),
    aff_quota: Number(rest.aff_quota),
    aff_history_quota: Number(rest.aff_history_quota),
    inviter_id: Number(rest.inviter_id),
    created_at: Number(rest.created_at),
    setting: JSON.stringify({ ...visibleSetting, webhook_secret_set: webhook_secret !== '' }),
    ...budgetView(row),
    DeletedAt:
      deleted_at === null || deleted_at === undefined
        ? null
        : new Date(Number(deleted_at) * 1000).toISOString(),
  };
}
