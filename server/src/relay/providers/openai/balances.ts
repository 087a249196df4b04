import { ChannelType } from '@modelgate/shared';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { accountBase } from '../model-list.ts';
import type { ProviderAdapter, ProviderHttp } from '../types.ts';
import { openaiAdapter } from './index.ts';

/**
 * Balance APIs of OpenAI-compatible hosts (the console's "update balance"), each amount as the host reports it
 * (USD or CNY). Each host is the OpenAI adapter plus its reader, registered under its channel type.
 */
type Reader = (ch: ChannelEntry, http: ProviderHttp, base: string) => Promise<number>;

const num = (v: unknown, what: string): number => {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`upstream reply has no ${what}`);
  return n;
};

const get = (http: ProviderHttp, ch: ChannelEntry, url: string): Promise<any> =>
  http(url, { headers: { authorization: `Bearer ${ch.key}` } });

/** OpenAI-style billing: subscription hard limit minus this month's usage (cents). */
const openaiBilling: Reader = async (ch, http, base) => {
  const sub = await get(http, ch, `${base}/v1/dashboard/billing/subscription`);
  const limit = num(sub?.hard_limit_usd, 'hard_limit_usd');
  const now = new Date();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
  const end = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  const usage = await get(http, ch, `${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${end}`);
  return limit - num(usage?.total_usage ?? 0, 'total_usage') / 100;
};

/** OpenAI-compatible resellers: credit grants (total_available or total_remaining), else the billing pair above. */
const creditGrants: Reader = async (ch, http, base) => {
  try {
    const g = await get(http, ch, `${base}/dashboard/billing/credit_grants`);
    return num(g?.total_available ?? g?.total_remaining, 'total_available');
  } catch {
    return openaiBilling(ch, http, base);
  }
};

const READERS: Record<number, Reader> = {
  [ChannelType.OpenAI]: creditGrants,
  [ChannelType.Custom]: creditGrants,
  // OpenRouter: credits bought minus credits used.
  [ChannelType.OpenRouter]: async (ch, http, base) => {
    const b = await get(http, ch, `${base}/v1/credits`);
    return num(b?.data?.total_credits, 'total_credits') - num(b?.data?.total_usage ?? 0, 'total_usage');
  },
  // Moonshot: available balance.
  25: async (ch, http, base) =>
    num((await get(http, ch, `${base}/v1/users/me/balance`))?.data?.available_balance, 'available_balance'),
  // SiliconCloud: user info with code 20000.
  40: async (ch, http, base) => {
    const b = await get(http, ch, `${base}/v1/user/info`);
    if (b?.code !== 20000 && b?.status !== true)
      throw new Error(`upstream refused: ${b?.message ?? 'unknown error'}`);
    return num(b?.data?.totalBalance ?? b?.data?.balance, 'totalBalance');
  },
  // DeepSeek: one entry per currency; prefer USD, else the first.
  43: async (ch, http, base) => {
    const b = await get(http, ch, `${base}/user/balance`);
    const infos: Array<{ currency?: string; total_balance?: string }> = b?.balance_infos ?? [];
    const entry = infos.find((i) => i.currency === 'USD') ?? infos[0];
    return num(entry?.total_balance, 'total_balance');
  },
};

/** The OpenAI-compatible hosts that publish a balance, by channel type. */
export const OPENAI_HOSTS_WITH_BALANCE: Record<number, ProviderAdapter> = Object.fromEntries(
  Object.entries(READERS).map(([type, read]) => [
    type,
    { ...openaiAdapter, balance: (ch: ChannelEntry, http: ProviderHttp) => read(ch, http, accountBase(ch)) },
  ]),
);
