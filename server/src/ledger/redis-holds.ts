import type { Redis } from 'ioredis';
import type { Balance } from './balance.ts';

/**
 * Holds shared by every instance through Redis, so several gateways spend one balance without overdrawing
 * it. Per account ("user:5", "token:9") Redis keeps:
 *   db   - the balance as last read from the database,
 *   out  - what is outstanding: amounts held for requests in flight plus charges settled but not yet written,
 *   gen  - bumped around every database write of that account, so a reread that overlapped one is retried.
 * Available = db - out. A hold is one Lua script over user and token, so it is atomic across instances.
 * Keys expire after `ttlSec` of inactivity (every use renews them); a missing key is reloaded from the database.
 * `namespace` names the database, so deployments (and test databases) sharing one Redis never mix balances.
 */

const HOLD = `
local amount = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local n = #KEYS / 2
local avail = {}
for i = 1, n do
  local db = redis.call('GET', KEYS[2 * i - 1])
  if not db then return -i end
  avail[i] = tonumber(db) - tonumber(redis.call('GET', KEYS[2 * i]) or '0')
end
for i = 1, n do
  if ARGV[2 + i] == '1' and (avail[i] <= 0 or avail[i] < amount) then return 100 + i end
end
for i = 1, n do
  redis.call('INCRBY', KEYS[2 * i], amount)
  redis.call('EXPIRE', KEYS[2 * i], ttl)
  redis.call('EXPIRE', KEYS[2 * i - 1], ttl)
end
return 0`;

const ADJUST = `
for i = 1, #KEYS do redis.call('INCRBY', KEYS[i], tonumber(ARGV[1])) end
return 0`;

const FLUSHED = `
local q = tonumber(ARGV[1])
for i = 1, #KEYS, 3 do
  redis.call('DECRBY', KEYS[i + 1], q)
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('DECRBY', KEYS[i], q) end
  redis.call('INCR', KEYS[i + 2])
end
return 0`;

const SET_IF_GEN = `
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
return 1`;

export type HoldResult = 'ok' | 'user' | 'token';

export class RedisHolds {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly ttlSec: number,
    /** Reads an account's balance from the database ("user:5" -> users.quota). */
    private readonly readDb: (account: string) => Promise<number | null>,
  ) {}

  private keys(account: string) {
    const base = `mg:bal:${this.namespace}:${account}`;
    return { db: `${base}:db`, out: `${base}:out`, gen: `${base}:gen` };
  }

  /** Loads `db` from the database unless a write of the account overlapped the read. */
  async load(account: string, overwrite: boolean): Promise<void> {
    const k = this.keys(account);
    for (let attempt = 0; attempt < 20; attempt++) {
      const gen = (await this.redis.get(k.gen)) ?? '0';
      if (!overwrite && (await this.redis.exists(k.db))) return;
      const value = await this.readDb(account);
      if (value === null) return;
      if (await this.redis.eval(SET_IF_GEN, 2, k.db, k.gen, String(value), gen, String(this.ttlSec))) return;
    }
  }

  async hold(
    user: Balance,
    token: Balance | undefined,
    amount: number,
    checkToken: boolean,
  ): Promise<HoldResult> {
    const accounts = token ? [user, token] : [user];
    const keys = accounts.flatMap((b) => [this.keys(b.account).db, this.keys(b.account).out]);
    const checks = accounts.map((_, i) => (i === 0 || checkToken ? '1' : '0'));
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = Number(
        await this.redis.eval(HOLD, keys.length, ...keys, String(amount), String(this.ttlSec), ...checks),
      );
      if (r === 0) return 'ok';
      if (r > 100) return r === 101 ? 'user' : 'token';
      await this.load(accounts[-r - 1].account, false);
    }
    return 'user';
  }

  /** Moves `delta` into (or, negative, out of) the outstanding amount of the accounts. */
  async adjust(accounts: Balance[], delta: number): Promise<void> {
    if (delta === 0 || accounts.length === 0) return;
    await this.redis.eval(
      ADJUST,
      accounts.length,
      ...accounts.map((b) => this.keys(b.account).out),
      String(delta),
    );
  }

  /** Called before a database write of these accounts: any reread running now must try again. */
  async writing(accounts: string[]): Promise<void> {
    if (accounts.length === 0) return;
    const pipe = this.redis.pipeline();
    for (const a of accounts) pipe.incr(this.keys(a).gen);
    await pipe.exec();
  }

  /** Called after the write committed: the amount is no longer outstanding, and `db` already excludes it. */
  async written(account: string, quota: number): Promise<void> {
    const k = this.keys(account);
    await this.redis.eval(FLUSHED, 3, k.db, k.out, k.gen, String(quota));
  }
}
