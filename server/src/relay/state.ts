import type { AppContext } from '../context.ts';
import { Ledger } from '../ledger/ledger.ts';
import { LedgerWriter } from '../ledger/writer.ts';
import { ChannelCache } from './cache/channels.ts';
import { PriceCache } from './cache/prices.ts';
import { TokenCache } from './cache/tokens.ts';
import { UserCache } from './cache/users.ts';
import { createModelRateLimit, type ModelRateLimit } from './checks/model-rate-limit.ts';
import { createSensitiveCheck, type SensitiveCheck } from './checks/sensitive.ts';
import { createNotifier, type Notifier } from './notify.ts';
import { createUpstream, type Upstream } from './upstream.ts';

/** Everything the relay keeps in memory for one app context, created once on first use. */
export interface RelayState {
  ctx: AppContext;
  writer: LedgerWriter;
  ledger: Ledger;
  tokens: TokenCache;
  users: UserCache;
  channels: ChannelCache;
  prices: PriceCache;
  upstream: Upstream;
  notifier: Notifier;
  sensitive: SensitiveCheck;
  rateLimit: ModelRateLimit;
}

const states = new WeakMap<AppContext, RelayState>();

export function relayState(ctx: AppContext): RelayState {
  let s = states.get(ctx);
  if (!s) {
    const writer = new LedgerWriter(ctx);
    s = {
      ctx,
      writer,
      ledger: new Ledger(ctx, writer),
      tokens: new TokenCache(ctx, writer),
      users: new UserCache(ctx, writer),
      channels: new ChannelCache(ctx),
      prices: new PriceCache(ctx),
      upstream: createUpstream(ctx),
      notifier: createNotifier(ctx),
      sensitive: createSensitiveCheck(ctx),
      rateLimit: createModelRateLimit(ctx),
    };
    const shared = s.ledger;
    s.users.onReload = (account) => shared.reloadShared(account);
    s.tokens.onReload = (account) => shared.reloadShared(account);
    states.set(ctx, s);
  }
  return s;
}
