import type { AppContext } from '../context.ts';
import type { RelayMetrics } from '../infra/metrics/relay-metrics.ts';
import { Ledger } from '../ledger/ledger.ts';
import { LedgerWriter } from '../ledger/writer.ts';
import { createModelRateLimit, type ModelRateLimit } from './admit/checks/model-rate-limit.ts';
import { createSensitiveCheck, type SensitiveCheck } from './admit/checks/sensitive.ts';
import { createMinuteLimits, type MinuteLimits } from './admit/limits/minute-limits.ts';
import { createUpstream, type Upstream } from './call/upstream-client.ts';
import { registerEnvelopeKey } from './formats/envelope/keys.ts';
import type { CacheStore } from './response-cache/entry.ts';
import { cacheStoreFor } from './response-cache/index.ts';
import { ConversationAffinity } from './route/affinity/store.ts';
import { breakersFor } from './route/breaker/index.ts';
import { Router } from './route/router.ts';
import { createNotifier, type Notifier } from './settle/user-notifier.ts';
import { ChannelCache } from './table-cache/channels.ts';
import { PriceCache } from './table-cache/prices.ts';
import { TokenCache } from './table-cache/tokens.ts';
import { UserCache } from './table-cache/users.ts';

/** Everything the relay keeps in memory for one app context, created once on first use. */
export interface RelayState {
  ctx: AppContext;
  writer: LedgerWriter;
  ledger: Ledger;
  tokens: TokenCache;
  users: UserCache;
  channels: ChannelCache;
  prices: PriceCache;
  /** Channel choice by the group's routing mode, behind the circuit breakers. */
  router: Router;
  /** Which channel and key each conversation went to last. */
  affinity: ConversationAffinity;
  upstream: Upstream;
  notifier: Notifier;
  sensitive: SensitiveCheck;
  rateLimit: ModelRateLimit;
  /** Requests and tokens per minute, per token and per group and model. */
  minuteLimits: MinuteLimits;
  /** Answers kept by the response cache (relay/response-cache/): in memory, or in Redis when configured. */
  responseCache: CacheStore;
  /** The relay's traffic metrics; absent when metrics are off. */
  metrics?: RelayMetrics;
}

const states = new WeakMap<AppContext, RelayState>();

export function relayState(ctx: AppContext): RelayState {
  let s = states.get(ctx);
  if (!s) {
    const writer = new LedgerWriter(ctx);
    const priceCache = new PriceCache(ctx);
    s = {
      ctx,
      writer,
      ledger: new Ledger(ctx, writer),
      tokens: new TokenCache(ctx, writer),
      users: new UserCache(ctx, writer),
      channels: new ChannelCache(ctx),
      prices: priceCache,
      router: new Router(ctx, breakersFor(ctx), priceCache),
      affinity: new ConversationAffinity(),
      upstream: createUpstream(ctx),
      notifier: createNotifier(ctx),
      sensitive: createSensitiveCheck(ctx),
      rateLimit: createModelRateLimit(ctx),
      minuteLimits: createMinuteLimits(ctx),
      responseCache: cacheStoreFor(ctx),
      metrics: ctx.metrics?.relay,
    };
    registerEnvelopeKey(ctx.options, ctx.config.cryptoSecret);
    const shared = s.ledger;
    s.users.onReload = (account) => shared.reloadShared(account);
    s.tokens.onReload = (account) => shared.reloadShared(account);
    s.users.now = s.tokens.now = () => shared.now();
    const { channels, prices } = s;
    if (s.metrics) s.metrics.knownModel = (m) => prices.has(m) || channels.servedAnywhere(m);
    states.set(ctx, s);
  }
  return s;
}

/** The relay caches that have not loaded yet: an instance is not ready before they have. */
export function pendingCaches(s: RelayState): string[] {
  const pending: string[] = [];
  if (!s.channels.loaded) pending.push('channels');
  if (!s.prices.loaded) pending.push('prices');
  return pending;
}
