import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { providerHttp } from '../../relay/providers/http.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { disableChannel } from './health.ts';
import { mustGet } from './service.ts';
import { isStopping } from './stopping.ts';
import { nowSec } from './store.ts';
import { proxyOf } from './targets.ts';
import { authHeaders, baseUrlOf, callUpstream, entryOf, firstKey, type UpstreamTarget } from './upstream.ts';

/** Balance endpoints of providers that have one; every amount is read as the provider reports it (USD or CNY). */
type Reader = (ctx: AppContext, t: UpstreamTarget, base: string) => Promise<number>;

async function getJson(ctx: AppContext, url: string, t: UpstreamTarget): Promise<any> {
  const reply = await callUpstream(ctx, url, {
    headers: authHeaders(t),
    timeoutMs: 20_000,
    secrets: [t.key],
    proxy: proxyOf(t.setting),
  });
  if (!reply.ok)
    throw new ApiError(`upstream answered ${reply.status}: ${reply.failure?.message ?? ''}`.trim(), 502);
  return reply.body;
}

const num = (v: unknown, what: string): number => {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new ApiError(`upstream reply has no ${what}`, 502);
  return n;
};

/** OpenAI-style billing: subscription hard limit minus this month's usage (cents). */
const openaiBilling: Reader = async (ctx, t, base) => {
  const sub = await getJson(ctx, `${base}/v1/dashboard/billing/subscription`, t);
  const limit = num(sub?.hard_limit_usd, 'hard_limit_usd');
  const now = new Date();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
  const end = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  const usage = await getJson(
    ctx,
    `${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${end}`,
    t,
  );
  return limit - num(usage?.total_usage ?? 0, 'total_usage') / 100;
};

/** OpenAI-compatible resellers: credit grants (total_available or total_remaining), else the billing pair above. */
const openaiCompatible: Reader = async (ctx, t, base) => {
  try {
    const g = await getJson(ctx, `${base}/dashboard/billing/credit_grants`, t);
    return num(g?.total_available ?? g?.total_remaining, 'total_available');
  } catch {
    return openaiBilling(ctx, t, base);
  }
};

const READERS: Record<number, Reader> = {
  1: openaiCompatible,
  8: openaiCompatible,
  // OpenRouter: credits bought minus credits used.
  20: async (ctx, t, base) => {
    const b = await getJson(ctx, `${base}/v1/credits`, t);
    return num(b?.data?.total_credits, 'total_credits') - num(b?.data?.total_usage ?? 0, 'total_usage');
  },
  // Moonshot: available balance.
  25: async (ctx, t, base) =>
    num((await getJson(ctx, `${base}/v1/users/me/balance`, t))?.data?.available_balance, 'available_balance'),
  // SiliconCloud: user info with code 20000.
  40: async (ctx, t, base) => {
    const b = await getJson(ctx, `${base}/v1/user/info`, t);
    if (b?.code !== 20000 && b?.status !== true)
      throw new ApiError(`upstream refused: ${b?.message ?? 'unknown error'}`, 502);
    return num(b?.data?.totalBalance ?? b?.data?.balance, 'totalBalance');
  },
  // DeepSeek: one entry per currency; prefer USD, else the first.
  43: async (ctx, t, base) => {
    const b = await getJson(ctx, `${base}/user/balance`, t);
    const infos: Array<{ currency?: string; total_balance?: string }> = b?.balance_infos ?? [];
    const entry = infos.find((i) => i.currency === 'USD') ?? infos[0];
    return num(entry?.total_balance, 'total_balance');
  },
};

export const balanceSupported = (type: number) =>
  Object.hasOwn(READERS, type) || adapterFor(type)?.balance !== undefined;

/** A provider adapter's own balance API, as a reader. */
const adapterReader = (type: number): Reader | undefined => {
  const read = adapterFor(type)?.balance;
  return read && ((ctx, t) => read(entryOf(t), providerHttp(ctx.options, [t.key], proxyOf(t.setting))));
};

/** Asks the provider for the channel's balance and stores it. */
export async function updateBalance(ctx: AppContext, id: number): Promise<number> {
  const row = await mustGet(ctx.db.db, id);
  const read = READERS[Number(row.type)] ?? adapterReader(Number(row.type));
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
    balance = await read(ctx, t, baseUrlOf(t.type, t.baseUrl));
  } catch (err) {
    if (err instanceof ApiError) throw err;
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
