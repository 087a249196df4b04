import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Admission, LimitKind, WindowCount, WindowLimit, Windows } from './windows.ts';
import { WINDOW_MS } from './windows.ts';

/**
 * Each window is a sorted set of its requests by time and a hash of each request's tokens, whose field `#`
 * holds their total. The script mirrors memory-windows.ts: drop what left the window, refuse when a cap is
 * reached (an empty window admits any size; a request needs at least one token of room), else add the request
 * to every window. Times come from the caller, so every instance and a test's clock agree.
 *
 * KEYS: set and hash of each window. ARGV: now, window ms, member, tokens, then rpm and tpm of each window.
 * Returns the refused window (1-based, 0 = admitted), the kind (1 requests, 2 tokens), the wait in ms, then
 * requests, tokens and reset ms of each window.
 */
const ADMIT = `
local now, win, member, est = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local need = math.max(est, 1)
local n = #KEYS / 2
local function prune(z, h)
  while true do
    local old = redis.call('ZRANGEBYSCORE', z, '-inf', now - win, 'LIMIT', 0, 500)
    if #old == 0 then return end
    local vals = redis.call('HMGET', h, unpack(old))
    local freed = 0
    for i = 1, #vals do freed = freed + (tonumber(vals[i]) or 0) end
    redis.call('HDEL', h, unpack(old))
    redis.call('ZREM', z, unpack(old))
    if freed ~= 0 then redis.call('HINCRBY', h, '#', -freed) end
  end
end
local function wait(z, h, kind, limit, requests, tokens)
  if kind == 1 then
    local e = redis.call('ZRANGE', z, requests - limit, requests - limit, 'WITHSCORES')
    return tonumber(e[2]) + win - now
  end
  local left, start = tokens, 0
  while true do
    local e = redis.call('ZRANGE', z, start, start + 499, 'WITHSCORES')
    if #e == 0 then return win end
    local members = {}
    for i = 1, #e, 2 do members[#members + 1] = e[i] end
    local vals = redis.call('HMGET', h, unpack(members))
    for i = 1, #vals do
      left = left - (tonumber(vals[i]) or 0)
      if left <= 0 or left + need <= limit then return tonumber(e[2 * i]) + win - now end
    end
    start = start + 500
  end
end
local counts = {}
local refused, kind, longest = 0, 0, -1
for i = 1, n do
  local z, h = KEYS[2 * i - 1], KEYS[2 * i]
  prune(z, h)
  local requests = redis.call('ZCARD', z)
  local tokens = tonumber(redis.call('HGET', h, '#')) or 0
  counts[i] = { requests, tokens }
  local rpm, tpm = tonumber(ARGV[3 + 2 * i]), tonumber(ARGV[4 + 2 * i])
  if rpm > 0 and requests >= rpm then
    local ms = wait(z, h, 1, rpm, requests, tokens)
    if ms > longest then refused, kind, longest = i, 1, ms end
  end
  if tpm > 0 and tokens > 0 and tokens + need > tpm then
    local ms = wait(z, h, 2, tpm, requests, tokens)
    if ms > longest then refused, kind, longest = i, 2, ms end
  end
end
if refused == 0 then
  for i = 1, n do
    local z, h = KEYS[2 * i - 1], KEYS[2 * i]
    redis.call('ZADD', z, now, member)
    redis.call('HSET', h, member, est)
    redis.call('HINCRBY', h, '#', est)
    redis.call('PEXPIRE', z, win)
    redis.call('PEXPIRE', h, win)
    counts[i][1] = counts[i][1] + 1
    counts[i][2] = counts[i][2] + est
  end
end
local out = { refused, kind, math.max(longest, 0) }
for i = 1, n do
  local first = redis.call('ZRANGE', KEYS[2 * i - 1], 0, 0, 'WITHSCORES')
  local reset = 0
  if #first > 0 then reset = tonumber(first[2]) + win - now end
  out[#out + 1] = counts[i][1]
  out[#out + 1] = counts[i][2]
  out[#out + 1] = reset
end
return out`;

/** KEYS: the hash of each window. ARGV: member, tokens. Entries that already left a window stay out of it. */
const CORRECT = `
for i = 1, #KEYS do
  local old = redis.call('HGET', KEYS[i], ARGV[1])
  if old then
    redis.call('HSET', KEYS[i], ARGV[1], ARGV[2])
    redis.call('HINCRBY', KEYS[i], '#', tonumber(ARGV[2]) - tonumber(old))
  end
end
return 0`;

const PREFIX = 'modelgate:rl:';
export const windowKeys = (key: string) => [`${PREFIX}${key}:z`, `${PREFIX}${key}:h`];

/** The windows every instance shares through Redis; each admission is one script run. */
export function redisWindows(redis: Redis): Windows {
  const instance = randomBytes(6).toString('hex');
  let seq = 0;
  return {
    async admit(limits: WindowLimit[], tokens: number, now: number): Promise<Admission> {
      const keys = limits.flatMap((l) => windowKeys(l.key));
      const member = `${instance}-${(seq++).toString(36)}`;
      const caps = limits.flatMap((l) => [l.rpm, l.tpm]);
      const raw = (await redis.eval(
        ADMIT,
        keys.length,
        ...keys,
        now,
        WINDOW_MS,
        member,
        tokens,
        ...caps,
      )) as number[];
      const counts: WindowCount[] = limits.map((_, i) => ({
        requests: Number(raw[3 + 3 * i]),
        tokens: Number(raw[4 + 3 * i]),
        resetMs: Math.max(0, Number(raw[5 + 3 * i])),
      }));
      const refused = Number(raw[0]);
      if (refused > 0) {
        const kind: LimitKind = Number(raw[1]) === 1 ? 'requests' : 'tokens';
        return { ok: false, counts, refused: refused - 1, kind, retryMs: Number(raw[2]) };
      }
      const hashes = keys.filter((_, i) => i % 2 === 1);
      return {
        ok: true,
        counts,
        ticket: {
          async correct(used: number) {
            await redis.eval(CORRECT, hashes.length, ...hashes, member, used);
          },
        },
      };
    },
  };
}
