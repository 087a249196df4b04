import type { IncomingHttpHeaders } from 'node:http';
import type { OptionStore } from '../../modules/options/store.ts';
import type { Caller } from '../admit/auth.ts';

/** The request header that turns the cache on (`on`) or off (`off`) for one request. */
export const CACHE_HEADER = 'x-modelgate-cache';

/** The response cache's options, read on every request (they apply on the next one). */
export interface CacheSettings {
  ttlMs: number;
  maxBytes: number;
  hitRatio: number;
  sharedAcrossUsers: boolean;
  multipleChoices: boolean;
}

export function settingsOf(options: OptionStore): CacheSettings {
  return {
    ttlMs: Math.max(1, options.int('response_cache.ttl_seconds')) * 1000,
    maxBytes: Math.max(1, options.int('response_cache.max_mb')) * 1024 * 1024,
    hitRatio: Math.max(0, options.float('response_cache.hit_ratio')),
    sharedAcrossUsers: options.bool('response_cache.shared_across_users'),
    multipleChoices: options.bool('response_cache.multiple_choices_enabled'),
  };
}

/**
 * Whether this request uses the cache: `X-ModelGate-Cache: off` always keeps it out; otherwise it is on for the
 * groups the operator lists (`*` for all), for tokens with the cache turned on, and for a request that asks
 * with `X-ModelGate-Cache: on` where the operator lets requests ask.
 */
export function cacheWanted(options: OptionStore, caller: Caller, headers: IncomingHttpHeaders): boolean {
  const asked = String(headers[CACHE_HEADER] ?? '')
    .trim()
    .toLowerCase();
  if (asked === 'off' || asked === 'false' || asked === '0') return false;
  if (caller.pinned) return false;
  if (caller.token?.responseCache) return true;
  if (groupListed(options.get('response_cache.groups'), caller.group)) return true;
  const on = asked === 'on' || asked === 'true' || asked === '1';
  return on && options.bool('response_cache.request_header_enabled');
}

function groupListed(list: string, group: string): boolean {
  for (const g of list.split(',')) {
    const name = g.trim();
    if (name === '*' || name === group) return true;
  }
  return false;
}
