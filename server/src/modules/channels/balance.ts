import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { providerHttp } from '../../relay/providers/http.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { MissingBaseUrl } from '../../relay/providers/model-list.ts';
import { disableChannel } from './health.ts';
import { mustGet } from './service.ts';
import { isStopping } from './stopping.ts';
import { nowSec } from './store.ts';
import { proxyOf } from './targets.ts';
import { entryOf, firstKey, type UpstreamTarget } from './upstream.ts';

/** Whether the channel type's provider publishes a balance (relay/providers: each host's own reader). */
export const balanceSupported = (type: number) => adapterFor(type)?.balance !== undefined;

/** Asks the provider for the channel's balance and stores it. */
export async function updateBalance(ctx: AppContext, id: number): Promise<number> {
  const row = await mustGet(ctx.db.db, id);
  const read = adapterFor(Number(row.type))?.balance;
  if (!read) throw new ApiError('balance queries are not supported for this channel type');
  const t: UpstreamTarget = {
    type: Number(row.type),
    baseUrl: row.base_url,
    key: firstKey(row.key),
    organization: row.openai_organization ?? '',
    other: row.other ?? '',
    setting: row.setting ?? '',
  };
  let balance: number;
  try {
    balance = await read(entryOf(t), providerHttp(ctx.options, [t.key], proxyOf(t.setting)));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof MissingBaseUrl) throw new ApiError(err.message);
    throw new ApiError((err as Error).message, 502);
  }
  balance = Math.round(balance * 1e6) / 1e6;
  await ctx.db.db
    .updateTable('channels')
    .set({ balance, balance_updated_time: nowSec() })
    .where('id', '=', row.id)
    .execute();
  return balance;
}

/** Refreshes every enabled channel that has a balance API; an empty balance disables the channel (auto-ban rules). */
export async function updateAllBalances(ctx: AppContext): Promise<{ updated: number; failed: number }> {
  const rows = await ctx.db.db
    .selectFrom('channels')
    .select(['id', 'type', 'auto_ban'])
    .where('status', '=', ChannelStatus.Enabled)
    .execute();
  let updated = 0;
  let failed = 0;
  for (const r of rows) {
    if (isStopping(ctx)) break;
    if (!balanceSupported(Number(r.type))) continue;
    try {
      const balance = await updateBalance(ctx, Number(r.id));
      updated++;
      if (balance <= 0 && Number(r.auto_ban) === 1 && ctx.options.bool('AutomaticDisableChannelEnabled')) {
        await disableChannel(ctx, Number(r.id), 'balance is used up');
      }
    } catch (err) {
      failed++;
      ctx.log.warn({ channel: r.id, err: (err as Error).message }, 'balance refresh failed');
    }
  }
  return { updated, failed };
}
