import type { AppContext } from '../../context.ts';
import type { RelayMeter } from '../../infra/metrics/relay-metrics.ts';
import { databaseNamespace } from '../../infra/namespace.ts';
import type { Caller } from '../admit/auth.ts';
import type { Produced, RelayInput } from '../admit/relay-input.ts';
import type { Price } from '../billing/quota.ts';
import type { RelayReply, RelayRequest } from '../http/exchange.ts';
import type { RelayState } from '../relay-state.ts';
import { ReplyCapture } from './capture.ts';
import type { CacheStore } from './entry.ts';
import { chargeHit, replay } from './hit.ts';
import { cacheKey } from './key.ts';
import { MemoryCacheStore } from './memory-store.ts';
import { answerCacheable, answerValues, requestCacheable } from './policy.ts';
import { RedisCacheStore } from './redis-store.ts';
import { CACHE_HEADER, type CacheSettings, cacheWanted, settingsOf } from './settings.ts';

/** The store of a deployment: Redis when configured (every instance shares it), else this process's memory. */
export function cacheStoreFor(ctx: AppContext): CacheStore {
  return ctx.redis ? new RedisCacheStore(ctx.redis, databaseNamespace(ctx.config)) : new MemoryCacheStore();
}

/** A miss being answered: its capture, kept when `keep` finds the answer cacheable. */
export interface CacheMiss {
  keep(produced: Produced): void;
  drop(): void;
}

/**
 * The cache's settings when the response cache is for this request, else undefined (most requests while it is
 * off): asked before lookupCache, so a request the cache is not for costs no promise.
 */
export function cacheSettingsFor(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
): CacheSettings | undefined {
  const { options } = state.ctx;
  if (!cacheWanted(options, caller, req.headers)) return undefined;
  const settings = settingsOf(options);
  return requestCacheable(input, settings.multipleChoices) ? settings : undefined;
}

/**
 * The pipeline's one look at the response cache, after the admission checks and the price, for a request
 * cacheSettingsFor found it is for: a hit is billed at the hit ratio and replayed ('served'); a miss returns a
 * capture of the answer about to be written.
 */
export async function lookupCache(
  settings: CacheSettings,
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  caller: Caller,
  input: RelayInput,
  price: Price & { unset: boolean },
  startedAt: number,
  meter?: RelayMeter,
): Promise<'served' | CacheMiss> {
  const key = cacheKey(input, caller, settings.sharedAcrossUsers);
  const metrics = state.ctx.metrics?.responseCache;
  let entry: Awaited<ReturnType<CacheStore['get']>>;
  try {
    entry = await state.responseCache.get(key);
  } catch (err) {
    req.log.warn({ err }, 'response cache lookup failed; answering from the upstream');
  }
  metrics?.looked(input.format, !!entry);
  if (entry) {
    const { quota, full } = await chargeHit(
      state,
      req,
      caller,
      input,
      price,
      entry,
      settings.hitRatio,
      startedAt,
    );
    metrics?.saved(entry.usage.promptTokens, entry.usage.completionTokens, full - quota);
    meter?.answered(quota, { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }, 0);
    replay(reply, entry);
    return 'served';
  }
  reply.header(CACHE_HEADER, 'miss');
  return missFor(state, req, reply, input, key, settings);
}

function missFor(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  input: RelayInput,
  key: string,
  settings: CacheSettings,
): CacheMiss {
  const capture = new ReplyCapture(reply.raw, settings.maxBytes);
  // Whatever ends the request (an answer, a refusal before any attempt, the client leaving), the wrapping goes.
  reply.raw.once('close', () => capture.stop());
  const store = (produced: Produced) => {
    capture.stop();
    const got = capture.result();
    // A stream cut short (the client left, the upstream failed) carries a note: only whole answers are kept.
    if (!got || produced.note || produced.quota !== undefined) return;
    const values = answerValues(got.body, input.info.stream);
    if (!values || !answerCacheable(values)) return;
    const entry = {
      contentType: got.contentType,
      body: got.body,
      usage: produced.usage,
      storedAt: Date.now(),
    };
    state.responseCache
      .set(key, entry, settings.ttlMs, settings.maxBytes)
      .then(() => state.ctx.metrics?.responseCache.stored())
      .catch((err) => req.log.warn({ err }, 'response cache store failed'));
  };
  return {
    keep(produced) {
      const raw = reply.raw;
      if (raw.writableEnded) return store(produced);
      raw.once('finish', () => store(produced));
    },
    drop() {
      capture.stop();
    },
  };
}
