import { RedemptionStatus } from '@modelgate/shared';
import type { ImportJob } from '../job.ts';
import { hasColumn } from '../job.ts';
import { importPlainTable, type PlannedRow } from '../plain-table.ts';
import { exactInt, fit, int, str, unixSeconds } from '../values.ts';

/**
 * Redemption codes keep their id, code, quota and state. Codes have no expiry here: an unused new-api code
 * past its expiry arrives disabled, and one that would expire later arrives without its expiry (noted).
 */
export async function importRedemptions(job: ImportJob): Promise<void> {
  if (!job.tables.has('redemptions')) return;
  await importPlainTable(job, {
    entity: 'redemptions',
    table: 'redemptions',
    natural: 'key',
    noun: 'code',
    plan,
  });
}

function plan(job: ImportJob, r: Record<string, unknown>): PlannedRow | string {
  const e = job.report.entity('redemptions');
  const id = exactInt(r.id);
  const key = str(r.key).trim();
  const quota = exactInt(r.quota);
  if (!id || id <= 0) return 'no valid id';
  if (!key || key.length > 64) return 'its code is empty or longer than 64 characters';
  if (quota === undefined || quota < 0) return 'quota is not a non-negative integer';
  let status = int(r.status, RedemptionStatus.Unused);
  const expires = hasColumn(job, 'redemptions', 'expired_time') ? int(r.expired_time) : 0;
  if (status === RedemptionStatus.Unused && expires > 0) {
    if (expires <= Math.floor(Date.now() / 1000)) {
      status = RedemptionStatus.Disabled;
      e.note('unused code past its expiry: imported disabled');
    } else e.note('unused code with an expiry: codes do not expire here, disable it by hand if needed');
  }
  return {
    id,
    user_id: int(r.user_id),
    key,
    status,
    name: fit(r.name, 191),
    quota,
    created_time: int(r.created_time),
    redeemed_time: int(r.redeemed_time),
    used_user_id: int(r.used_user_id),
    deleted_at: hasColumn(job, 'redemptions', 'deleted_at') ? unixSeconds(r.deleted_at) : null,
  };
}
