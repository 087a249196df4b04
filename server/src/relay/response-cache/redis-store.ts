import type { Redis } from 'ioredis';
import { type CacheEntry, type CacheStore, entryBytes } from './entry.ts';

/**
 * Stores an entry and keeps the total under the cap, atomically: the entry expires by itself (PX); an index
 * (sorted by store time) and a hash of sizes let the oldest entries go when the total passes the cap, and
 * entries that expired on their own are taken off the total when their store time is older than the TTL.
 * KEYS: entry, index, sizes, total. ARGV: value, ttl ms, now ms, cap bytes, size bytes.
 */
const SET_WITHIN_CAP = `
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cap = tonumber(ARGV[4])
local function forget(k)
  local s = redis.call('HGET', KEYS[3], k)
  if s then redis.call('DECRBY', KEYS[4], s) end
  redis.call('HDEL', KEYS[3], k)
  redis.call('ZREM', KEYS[2], k)
end
for _, k in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ttl)) do forget(k) end
forget(KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], ARGV[5])
local total = redis.call('INCRBY', KEYS[4], ARGV[5])
while total > cap do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  forget(oldest)
  redis.call('DEL', oldest)
  total = tonumber(redis.call('GET', KEYS[4]) or '0')
end
return total`;

/** Entries in Redis, shared by every instance of the deployment (`ns` keeps deployments apart). */
export class RedisCacheStore implements CacheStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    ns: string,
  ) {
    this.prefix = `modelgate:rc:${ns}:`;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await this.redis.get(this.prefix + key);
    return raw ? (JSON.parse(raw) as CacheEntry) : undefined;
  }

  async set(key: string, entry: CacheEntry, ttlMs: number, maxBytes: number): Promise<void> {
    const bytes = entryBytes(key, entry);
    if (bytes > maxBytes) return;
    const p = this.prefix;
    await this.redis.eval(
      SET_WITHIN_CAP,
      4,
      p + key,
      `${p}index`,
      `${p}sizes`,
      `${p}total`,
      JSON.stringify(entry),
      ttlMs,
      Date.now(),
      maxBytes,
      bytes,
    );
  }
}
