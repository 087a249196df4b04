import type { Redis } from 'ioredis';

/**
 * Counts failed redemption attempts per user in a fixed window, so nobody can try codes at machine speed.
 * With Redis the count is shared by every instance; otherwise it lives in this process.
 */
export interface AttemptLimiter {
  blocked(userId: number): Promise<boolean>;
  fail(userId: number): Promise<void>;
}

export function createAttemptLimiter(opts: {
  max: number;
  windowSec: number;
  redis?: Redis;
}): AttemptLimiter {
  const { max, windowSec, redis } = opts;
  if (redis) {
    const key = (id: number) => `redeem-fail:${id}`;
    return {
      async blocked(id) {
        return Number((await redis.get(key(id))) ?? 0) >= max;
      },
      async fail(id) {
        const n = await redis.incr(key(id));
        if (n === 1) await redis.expire(key(id), windowSec);
      },
    };
  }
  const windows = new Map<number, { start: number; count: number }>();
  const current = (id: number) => {
    const w = windows.get(id);
    if (!w || Date.now() - w.start >= windowSec * 1000) return undefined;
    return w;
  };
  return {
    async blocked(id) {
      return (current(id)?.count ?? 0) >= max;
    },
    async fail(id) {
      const w = current(id);
      if (w) w.count += 1;
      else {
        if (windows.size > 10_000) windows.clear();
        windows.set(id, { start: Date.now(), count: 1 });
      }
    },
  };
}
