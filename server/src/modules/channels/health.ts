import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { writeStatus } from './service.ts';
import { getChannel } from './store.ts';

/**
 * Channel health for the relay and the channel tests. Only an enabled channel can be disabled (so a repeat
 * is a no-op), and only an automatically disabled one is ever re-enabled automatically.
 */
export async function disableChannel(
  ctx: AppContext,
  id: number,
  reason: string,
  auto = true,
): Promise<boolean> {
  const done = await ctx.db.db.transaction().execute(async (db) => {
    const row = await getChannel(db, id);
    if (!row || Number(row.status) !== ChannelStatus.Enabled) return false;
    await writeStatus(db, row, auto ? ChannelStatus.AutoDisabled : ChannelStatus.ManuallyDisabled, reason);
    return true;
  });
  if (done) {
    ctx.log.warn({ channel: id, reason, auto }, 'channel disabled');
    if (auto) ctx.metrics?.channelAutoDisabled(id, 'channel');
    ctx.bus.publish('channels');
  }
  return done;
}

export async function enableChannel(ctx: AppContext, id: number, reason = 'passed a test'): Promise<boolean> {
  const done = await ctx.db.db.transaction().execute(async (db) => {
    const row = await getChannel(db, id);
    if (!row || Number(row.status) === ChannelStatus.Enabled) return false;
    await writeStatus(db, row, ChannelStatus.Enabled, reason);
    return true;
  });
  if (done) {
    ctx.log.info({ channel: id }, 'channel enabled');
    ctx.bus.publish('channels');
  }
  return done;
}

/** What an upstream failure looked like, in the OpenAI error object's terms. */
export interface UpstreamFailure {
  status?: number;
  type?: string | null;
  code?: string | number | null;
  message?: string;
}

const DISABLING_CODES = new Set(['invalid_api_key', 'account_deactivated', 'billing_not_active']);
const DISABLING_TYPES = new Set([
  'insufficient_quota',
  'insufficient_user_quota',
  'authentication_error',
  'permission_error',
  'forbidden',
]);

/** The upstream refused the key itself (401, or OpenAI's invalid_api_key): that key will not work again. */
export const keyRefused = (err: UpstreamFailure) => err.status === 401 || err.code === 'invalid_api_key';

/** True when the error says the channel's account or key is unusable and the admin allows auto-disabling. */
export function shouldDisableChannel(ctx: AppContext, err: UpstreamFailure, channelType?: number): boolean {
  if (!ctx.options.bool('AutomaticDisableChannelEnabled')) return false;
  if (err.status === 401) return true;
  if (err.status === 403 && channelType === 24) return true;
  if (err.code != null && DISABLING_CODES.has(String(err.code))) return true;
  if (err.type && DISABLING_TYPES.has(err.type)) return true;
  const message = (err.message ?? '').toLowerCase();
  if (!message) return false;
  return ctx.options
    .get('AutomaticDisableKeywords')
    .split('\n')
    .map((k) => k.trim().toLowerCase())
    .some((k) => k && message.includes(k));
}

/** Whether a test that took `ms` is too slow (ChannelDisableThreshold seconds; 0 turns the rule off). */
export function tooSlow(ctx: AppContext, ms: number): boolean {
  const threshold = ctx.options.float('ChannelDisableThreshold');
  return threshold > 0 && ms > threshold * 1000;
}
