import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../context.ts';
import { RelayError } from '../../relay-error.ts';

/**
 * Per-user model request limits (ModelRequestRateLimit* options):
 * within the last DurationMinutes a user may send at most Count requests (0 = no limit; failed ones count)
 * and get at most SuccessCount successful answers. ModelRequestRateLimitGroup ({group: [count, success]})
 * overrides both numbers for users of that group. Windows live in memory, or in Redis when configured so
 * every instance sees the same counts.
 */
export interface ModelRateLimit {
  /**
   * Checks and records one request; throws a 429 RelayError when a limit is reached. Call the function it
   * resolves to once the answer is known to have succeeded (status < 400). Null, at once, when no limit
   * applies to the group (no promise on the request path then).
   */
  acquire(userId: number, group: string): Promise<() => Promise<void>> | null;
}

interface Limits {
  windowMs: number;
  count: number;
  success: number;
}

/** A sliding window of hit times per key. */
interface Windows {
  /** Records a hit unless `limit` hits are already in the window; says whether it was recorded. */
  hitIfBelow(key: string, limit: number, windowMs: number): Promise<boolean>;
  count(key: string, windowMs: number): Promise<number>;
  add(key: string, windowMs: number): Promise<void>;
}

function memoryWindows(now: () => number = Date.now): Windows {
  const hits = new Map<string, number[]>();
  const live = (key: string, windowMs: number) => {
    const t = now();
    const list = hits.get(key) ?? [];
    let drop = 0;
    while (drop < list.length && list[drop] <= t - windowMs) drop++;
    if (drop) list.splice(0, drop);
    if (!list.length) hits.delete(key);
    return { list, t };
  };
  return {
    async hitIfBelow(key, limit, windowMs) {
      const { list, t } = live(key, windowMs);
      if (list.length >= limit) return false;
      list.push(t);
      hits.set(key, list);
      return true;
    },
    async count(key, windowMs) {
      return live(key, windowMs).list.length;
    },
    async add(key, windowMs) {
      const { list, t } = live(key, windowMs);
      list.push(t);
      hits.set(key, list);
    },
  };
}

const HIT_IF_BELOW = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

function redisWindows(ctx: AppContext): Windows {
  const redis = ctx.redis!;
  const k = (key: string) => `modelgate:mrl:${key}`;
  const member = () => `${Date.now()}-${randomBytes(6).toString('hex')}`;
  return {
    async hitIfBelow(key, limit, windowMs) {
      return Number(await redis.eval(HIT_IF_BELOW, 1, k(key), Date.now(), windowMs, limit, member())) === 1;
    },
    async count(key, windowMs) {
      await redis.zremrangebyscore(k(key), '-inf', Date.now() - windowMs);
      return redis.zcard(k(key));
    },
    async add(key, windowMs) {
      await redis.multi().zadd(k(key), Date.now(), member()).pexpire(k(key), windowMs).exec();
    },
  };
}

function limitsFor(ctx: AppContext, group: string): Limits {
  const minutes = Math.max(0, ctx.options.float('ModelRequestRateLimitDurationMinutes'));
  let count = ctx.options.int('ModelRequestRateLimitCount');
  let success = ctx.options.int('ModelRequestRateLimitSuccessCount');
  const groups = ctx.options.json<Record<string, unknown>>('ModelRequestRateLimitGroup');
  const override = groups && typeof groups === 'object' ? groups[group] : undefined;
  if (Array.isArray(override) && override.length === 2 && override.every((n) => Number.isInteger(n))) {
    [count, success] = override as [number, number];
  }
  return { windowMs: minutes * 60_000, count, success };
}

export function createModelRateLimit(ctx: AppContext): ModelRateLimit {
  const windows = ctx.redis ? redisWindows(ctx) : memoryWindows();
  const check = async (userId: number, { windowMs, count, success }: Limits) => {
    const minutes = windowMs / 60_000;
    if (success > 0 && (await windows.count(`s:${userId}`, windowMs)) >= success) {
      throw new RelayError(
        429,
        `rate limit reached: at most ${success} successful requests in ${minutes} minute(s)`,
        'rate_limit_error',
        'model_request_rate_limited',
      );
    }
    if (count > 0 && !(await windows.hitIfBelow(`t:${userId}`, count, windowMs))) {
      throw new RelayError(
        429,
        `rate limit reached: at most ${count} requests in ${minutes} minute(s), failed ones included`,
        'rate_limit_error',
        'model_request_rate_limited',
      );
    }
    return () => windows.add(`s:${userId}`, windowMs);
  };
  return {
    acquire(userId, group) {
      if (!ctx.options.bool('ModelRequestRateLimitEnabled')) return null;
      const limits = limitsFor(ctx, group);
      return limits.windowMs > 0 ? check(userId, limits) : null;
    },
  };
}
