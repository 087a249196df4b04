import { randomBytes } from 'node:crypto';
import type { FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import { ApiError } from './envelope.ts';

/**
 * Sliding-window request limits per key (the client IP): at most `count` hits in the last `durationSec`.
 * In memory per process, or in Redis (a sorted set per key, updated by one Lua script) when the context has
 * Redis, so every instance shares the same window.
 */
export interface RateLimiter {
  /** Records a hit and says whether it is allowed; a refused hit is not recorded. */
  hit(key: string): Promise<boolean>;
  /** Whether the window is full (the next hit would be refused), recording nothing. */
  full(key: string): Promise<boolean>;
}

/**
 * The bucket a client address counts in: the address itself for IPv4, its /64 network for IPv6, since one
 * IPv6 host usually holds a whole /64 and could otherwise pick a fresh address for every request.
 */
export function clientKey(ip: string): string {
  if (!ip.includes(':') || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

export const TOO_MANY_REQUESTS = 'too many requests, please try again later';

export function memoryRateLimiter(
  count: number,
  durationSec: number,
  now: () => number = Date.now,
): RateLimiter {
  const windowMs = durationSec * 1000;
  const hits = new Map<string, number[]>();
  let lastSweep = now();
  const sweep = (t: number) => {
    if (t - lastSweep < windowMs) return;
    lastSweep = t;
    for (const [k, list] of hits) if (!list.length || list[list.length - 1] <= t - windowMs) hits.delete(k);
  };
  const live = (key: string, t: number) => {
    const list = hits.get(key);
    if (!list) return 0;
    let drop = 0;
    while (drop < list.length && list[drop] <= t - windowMs) drop++;
    if (drop) list.splice(0, drop);
    return list.length;
  };
  return {
    async full(key) {
      return live(key, now()) >= count;
    },
    async hit(key) {
      const t = now();
      sweep(t);
      let list = hits.get(key);
      if (!list) {
        list = [];
        hits.set(key, list);
      }
      let drop = 0;
      while (drop < list.length && list[drop] <= t - windowMs) drop++;
      if (drop) list.splice(0, drop);
      if (list.length >= count) return false;
      list.push(t);
      return true;
    },
  };
}

const WINDOW_SIZE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])`;

const SLIDING_WINDOW = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, window)
return 1`;

export function redisRateLimiter(
  redis: Redis,
  name: string,
  count: number,
  durationSec: number,
): RateLimiter {
  return {
    async full(key) {
      const size = await redis.eval(
        WINDOW_SIZE,
        1,
        `modelgate:rl:${name}:${key}`,
        Date.now(),
        durationSec * 1000,
      );
      return Number(size) >= count;
    },
    async hit(key) {
      const member = `${Date.now()}-${randomBytes(6).toString('hex')}`;
      const allowed = await redis.eval(
        SLIDING_WINDOW,
        1,
        `modelgate:rl:${name}:${key}`,
        Date.now(),
        durationSec * 1000,
        count,
        member,
      );
      return Number(allowed) === 1;
    },
  };
}

const limiters = new WeakMap<AppContext, Map<string, RateLimiter>>();

/** One shared limiter per context and name (all routes using the same name share one bucket per IP). */
export function namedLimiter(ctx: AppContext, name: string, count: number, durationSec: number): RateLimiter {
  let byName = limiters.get(ctx);
  if (!byName) {
    byName = new Map();
    limiters.set(ctx, byName);
  }
  let limiter = byName.get(name);
  if (!limiter) {
    limiter = ctx.redis
      ? redisRateLimiter(ctx.redis, name, count, durationSec)
      : memoryRateLimiter(count, durationSec);
    byName.set(name, limiter);
  }
  return limiter;
}

/** A hook refusing the request with a 429 envelope when the limiter trips. */
export function limitHook(
  limiter: RateLimiter,
  keyOf: (req: FastifyRequest) => string = (req) => clientKey(req.ip),
): onRequestAsyncHookHandler {
  return async (req) => {
    if (!(await limiter.hit(keyOf(req)))) throw new ApiError(TOO_MANY_REQUESTS, 429);
  };
}

/** CRITICAL_RATE_LIMIT per IP over login, registration and other sensitive routes (one shared bucket). */
export function criticalRateLimit(ctx: AppContext): onRequestAsyncHookHandler {
  const { count, durationSec } = ctx.config.criticalRateLimit;
  return limitHook(namedLimiter(ctx, 'critical', count, durationSec));
}

/**
 * Failed password logins per account, next to the per-IP limit: an attacker spreading guesses over many
 * addresses still gets LOGIN_FAILURES_PER_ACCOUNT tries per window on one account.
 */
export const LOGIN_FAILURES_PER_ACCOUNT = { count: 10, durationSec: 15 * 60 };
export function loginFailureLimiter(ctx: AppContext): RateLimiter {
  const { count, durationSec } = LOGIN_FAILURES_PER_ACCOUNT;
  return namedLimiter(ctx, 'login-failures', count, durationSec);
}

/** GLOBAL_API_RATE_LIMIT per IP over every /api request; a no-op when disabled. */
export function globalApiRateLimit(ctx: AppContext): onRequestAsyncHookHandler {
  const { enabled, count, durationSec } = ctx.config.globalApiRateLimit;
  if (!enabled) return async () => {};
  return limitHook(namedLimiter(ctx, 'global-api', count, durationSec));
}

/**
 * GLOBAL_WEB_RATE_LIMIT per IP over console page loads (HTML navigations), answered with a plain-text 429.
 * Static files (anything with an extension, such as /assets/*.js) are not counted: one page load fetches many.
 */
export function globalWebRateLimit(
  ctx: AppContext,
  isConsolePage: (path: string) => boolean,
): onRequestHookHandler {
  const { enabled, count, durationSec } = ctx.config.globalWebRateLimit;
  // Callback style: this hook runs on every request (the relay's included), and an async hook costs a
  // promise each time even when it has nothing to do.
  if (!enabled) return (_req, _reply, done) => done();
  const limiter = namedLimiter(ctx, 'global-web', count, durationSec);
  return (req, reply, done) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return done();
    const path = req.url.split('?')[0];
    const last = path.slice(path.lastIndexOf('/') + 1);
    if (!isConsolePage(path) || (last.includes('.') && !last.endsWith('.html'))) return done();
    limiter.hit(clientKey(req.ip)).then((allowed) => {
      if (allowed) done();
      else reply.code(429).type('text/plain; charset=utf-8').send(TOO_MANY_REQUESTS);
    }, done);
  };
}
