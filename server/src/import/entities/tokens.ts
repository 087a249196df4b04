import { TokenStatus } from '@modelgate/shared';
import { allowListLines, parseAllowEntry } from '../../infra/ip-allow.ts';
import { hasColumn, type ImportJob } from '../job.ts';
import { importPlainTable, type PlannedRow } from '../plain-table.ts';
import { exactInt, fit, flag, int, str, unixSeconds } from '../values.ts';

const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Tokens keep their id and key (stored without `sk-`, as both projects do), so clients keep working, and
 * their owner, limits, expiry, quota and group. one-api's `models` and `subnet` become the model limits and
 * the IP allow list. A token whose owner was not imported, or whose key another token holds, is skipped.
 */
export async function importTokens(job: ImportJob): Promise<void> {
  const written = await importPlainTable(job, {
    entity: 'tokens',
    table: 'tokens',
    natural: 'key',
    noun: 'token',
    plan,
  });
  // Forgets keys the relay remembered as unknown, so the imported ones work at once.
  if (!job.dryRun && written) job.afterCommit.push(() => job.ctx.bus.publish('token:0'));
}

function plan(job: ImportJob, r: Record<string, unknown>): PlannedRow | string {
  const e = job.report.entity('tokens');
  const id = exactInt(r.id);
  if (!id || id <= 0) return 'no valid id';
  const userId = int(r.user_id);
  if (!job.users.has(userId)) return `its owner (user ${userId}) was not imported`;
  const key = str(r.key).trim().replace(/^sk-/, '');
  if (!KEY.test(key))
    return 'its key is empty, longer than 64 characters or holds characters keys cannot have';
  const remain = exactInt(r.remain_quota);
  const used = exactInt(r.used_quota);
  if (remain === undefined || used === undefined) return 'quota is not an exact integer';
  let limits = '';
  let limitsOn: 0 | 1 = 0;
  if (hasColumn(job, 'tokens', 'model_limits')) {
    limits = str(r.model_limits);
    limitsOn = flag(r.model_limits_enabled);
  } else if (str(r.models).trim()) {
    // one-api: a non-empty model list is the limit.
    limits = str(r.models);
    limitsOn = 1;
  }
  const ips = str(hasColumn(job, 'tokens', 'allow_ips') ? r.allow_ips : r.subnet);
  const entries = allowListLines(ips);
  const good = entries.filter((x) => parseAllowEntry(x));
  if (good.length < entries.length)
    e.note('IP allow-list entries that are not addresses or CIDR ranges were dropped');
  if (entries.length && !good.length)
    return 'its IP allow list holds no valid address, and dropping it would open the token';
  let status = int(r.status, TokenStatus.Enabled);
  if (status < TokenStatus.Enabled || status > TokenStatus.Exhausted) status = TokenStatus.Disabled;
  const deleted = hasColumn(job, 'tokens', 'deleted_at') ? unixSeconds(r.deleted_at) : null;
  return {
    id,
    user_id: userId,
    key,
    status,
    name: fit(r.name, 128),
    created_time: int(r.created_time),
    accessed_time: int(r.accessed_time),
    expired_time: r.expired_time === null || r.expired_time === undefined ? -1 : int(r.expired_time, -1),
    remain_quota: remain,
    unlimited_quota: flag(r.unlimited_quota),
    model_limits_enabled: limitsOn,
    model_limits: limits,
    allow_ips: good.join('\n'),
    used_quota: used,
    group: fit(r.group, 64),
    deleted_at: deleted,
  };
}
