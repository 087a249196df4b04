import type { Redis } from 'ioredis';
import type { Balance } from './balance.ts';

/**
 * Holds shared by every instance through Redis, so several gateways spend one balance without overdrawing
 * it. Per account ("user:5", "token:9") Redis keeps:
 *   db   - the balance as last read from the database,
 *   out  - what is outstanding: amounts held for requests in flight plus charges settled but not yet written,
 *   gen  - bumped around every database write of that account, so a reread that overlapped one is retried.
 * Available = db - out. Per account with a periodic budget, and per period (named by its end), it keeps:
 *   used - the period's spend as read from the database (budget_used when the row counts that period, else 0),
 *   out  - held and settled-but-unwritten amounts of that period.
 * Available = limit - used - out. A hold is one Lua script over the balances and the budgets of user and token,
 * so it is atomic across instances. Keys expire after `ttlSec` of inactivity (every hold renews them); a missing
 * key is reloaded from the database, a period's keys simply expire once it is over.
 * `namespace` names the database, so deployments (and test databases) sharing one Redis never mix balances.
 */

// ARGV[3 + i] says how slot i is checked: '0' not at all, '1' as a balance (db - out), '=<limit>' as a budget.
// A request is admitted while every checked slot has its expected cost (ARGV[3]) left, then reserves its
// bound (ARGV[1]): see balance.ts tryHold.
const AVAILABLE = `
local function available(i, check)
  local base = redis.call('GET', KEYS[2 * i - 1])
  if not base then return nil end
  local out = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  if string.sub(check, 1, 1) == '=' then return tonumber(string.sub(check, 2)) - tonumber(base) - out end
  return tonumber(base) - out
end
`;

const HOLD = `${AVAILABLE}
local amount = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local need = tonumber(ARGV[3])
local n = #KEYS / 2
local avail = {}
for i = 1, n do
  avail[i] = available(i, ARGV[3 + i])
  if not avail[i] then return -i end
end
for i = 1, n do
  if ARGV[3 + i] ~= '0' and (avail[i] <= 0 or avail[i] < need) then return 100 + i end
end
for i = 1, n do
  redis.call('INCRBY', KEYS[2 * i], amount)
  redis.call('EXPIRE', KEYS[2 * i], ttl)
  redis.call('EXPIRE', KEYS[2 * i - 1], ttl)
end
return 0`;

// Settles a hold of ARGV[1] for a cost of ARGV[2]: the cost in full unless it passes the hold while a checked
// slot has nothing left besides this hold; then the hold (balance.ts chargeWithin). Returns the charge.
const SETTLE = `${AVAILABLE}
local amount = tonumber(ARGV[1])
local charge = tonumber(ARGV[2])
local n = #KEYS / 2
if charge > amount then
  for i = 1, n do
    local check = ARGV[2 + i]
    if check ~= '0' then
      local left = available(i, check)
      if left and left + amount <= 0 then charge = amount end
    end
  end
end
for i = 1, n do redis.call('INCRBY', KEYS[2 * i], charge - amount) end
return charge`;

const ADJUST = `
for i = 1, #KEYS do redis.call('INCRBY', KEYS[i], tonumber(ARGV[1])) end
return 0`;

// After a committed write: ARGV[1] balances (db, out, gen keys each), then one amount per balance and per
// budget period (used, out keys each). A period's spend moves from out to used, a balance's out of both.
const FLUSHED = `
local n = tonumber(ARGV[1])
for i = 1, n do
  local q = tonumber(ARGV[1 + i])
  local k = 3 * (i - 1)
  if redis.call('EXISTS', KEYS[k + 2]) == 1 then redis.call('DECRBY', KEYS[k + 2], q) end
  if redis.call('EXISTS', KEYS[k + 1]) == 1 then redis.call('DECRBY', KEYS[k + 1], q) end
  redis.call('INCR', KEYS[k + 3])
end
local m = (#KEYS - 3 * n) / 2
for j = 1, m do
  local q = tonumber(ARGV[1 + n + j])
  local k = 3 * n + 2 * (j - 1)
  if redis.call('EXISTS', KEYS[k + 2]) == 1 then redis.call('DECRBY', KEYS[k + 2], q) end
  if redis.call('EXISTS', KEYS[k + 1]) == 1 then redis.call('INCRBY', KEYS[k + 1], q) end
end
return 0`;

// ARGV[4] = 'NX': a budget's spend is only ever loaded into a missing key, never over one in use.
const SET_IF_GEN = `
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] then return 0 end
if ARGV[4] == 'NX' then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]), 'NX')
else
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
end
return 1`;

export type HoldResult = 'ok' | 'user' | 'token' | 'user_budget' | 'token_budget';

/** A budget period a hold is checked against: its account, the period's end and the budget's amount. */
export interface SharedBudget {
  who: 'user_budget' | 'token_budget';
  account: string;
  end: number;
  limit: number;
}

/** What a settle is checked against: the hold's balances and budget periods. */
export interface SettleSlots {
  user: Balance;
  token?: Balance;
  tokenChecked: boolean;
  budgets: SharedBudget[];
}

/** One period of one account's budget, as the writer reports it: spend written to the database. */
export type BudgetAmounts = Map<string, Map<number, number>>;

interface Slot {
  base: string;
  out: string;
  check: string;
  who: Exclude<HoldResult, 'ok'>;
  load(): Promise<void>;
}

export class RedisHolds {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly ttlSec: number,
    /** Reads an account's balance from the database ("user:5" -> users.quota). */
    private readonly readDb: (account: string) => Promise<number | null>,
    /** Reads what an account's budget has spent in the period ending at `end` (null: no such account). */
    private readonly readBudget: (account: string, end: number) => Promise<number | null>,
  ) {}

  private keys(account: string) {
    const base = `mg:bal:${this.namespace}:${account}`;
    return { db: `${base}:db`, out: `${base}:out`, gen: `${base}:gen` };
  }

  private budgetKeys(account: string, end: number) {
    const base = `mg:bud:${this.namespace}:${account}:${end}`;
    return { used: `${base}:used`, out: `${base}:out` };
  }

  /** Loads `db` from the database unless a write of the account overlapped the read. */
  async load(account: string, overwrite: boolean): Promise<void> {
    const k = this.keys(account);
    await this.loadKey(account, k.db, overwrite, () => this.readDb(account));
  }

  private async loadBudget(account: string, end: number): Promise<void> {
    const k = this.budgetKeys(account, end);
    await this.loadKey(account, k.used, false, () => this.readBudget(account, end));
  }

  private async loadKey(
    account: string,
    key: string,
    overwrite: boolean,
    read: () => Promise<number | null>,
  ): Promise<void> {
    const { gen: genKey } = this.keys(account);
    for (let attempt = 0; attempt < 20; attempt++) {
      const gen = (await this.redis.get(genKey)) ?? '0';
      if (!overwrite && (await this.redis.exists(key))) return;
      const value = await read();
      if (value === null) return;
      const mode = overwrite ? '' : 'NX';
      if (await this.redis.eval(SET_IF_GEN, 2, key, genKey, String(value), gen, String(this.ttlSec), mode))
        return;
    }
  }

  async hold(
    user: Balance,
    token: Balance | undefined,
    ask: { need: number; amount: number },
    checkToken: boolean,
    budgets: SharedBudget[] = [],
  ): Promise<HoldResult> {
    const slots = this.slots({ user, token, tokenChecked: checkToken, budgets });
    const keys = slots.flatMap((s) => [s.base, s.out]);
    const checks = slots.map((s) => s.check);
    const args = [String(ask.amount), String(this.ttlSec), String(ask.need), ...checks];
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = Number(await this.redis.eval(HOLD, keys.length, ...keys, ...args));
      if (r === 0) return 'ok';
      if (r > 100) return slots[r - 101].who;
      await slots[-r - 1].load();
    }
    return 'user';
  }

  /** Settles a hold of `amount` that cost `quota`, atomically across instances; returns the charge. */
  async settle(on: SettleSlots, amount: number, quota: number): Promise<number> {
    const slots = this.slots(on);
    const keys = slots.flatMap((s) => [s.base, s.out]);
    const checks = slots.map((s) => s.check);
    return Number(
      await this.redis.eval(SETTLE, keys.length, ...keys, String(amount), String(quota), ...checks),
    );
  }

  private slots(on: SettleSlots): Slot[] {
    const slots: Slot[] = [this.balanceSlot(on.user, '1', 'user')];
    if (on.token) slots.push(this.balanceSlot(on.token, on.tokenChecked ? '1' : '0', 'token'));
    for (const b of on.budgets) {
      const k = this.budgetKeys(b.account, b.end);
      slots.push({
        base: k.used,
        out: k.out,
        check: `=${b.limit}`,
        who: b.who,
        load: () => this.loadBudget(b.account, b.end),
      });
    }
    return slots;
  }

  private balanceSlot(b: Balance, check: string, who: 'user' | 'token'): Slot {
    const k = this.keys(b.account);
    return { base: k.db, out: k.out, check, who, load: () => this.load(b.account, false) };
  }

  /**
   * Moves `delta` into (or, negative, out of) the outstanding amount of the accounts and of the budget periods.
   */
  async adjust(
    accounts: Balance[],
    delta: number,
    budgets: Array<{ account: string; end: number }> = [],
  ): Promise<void> {
    if (delta === 0 || accounts.length + budgets.length === 0) return;
    const keys = [
      ...accounts.map((b) => this.keys(b.account).out),
      ...budgets.map((b) => this.budgetKeys(b.account, b.end).out),
    ];
    await this.redis.eval(ADJUST, keys.length, ...keys, String(delta));
  }

  /** Called before a database write of these accounts: any reread running now must try again. */
  async writing(accounts: string[]): Promise<void> {
    if (accounts.length === 0) return;
    const pipe = this.redis.pipeline();
    for (const a of accounts) pipe.incr(this.keys(a).gen);
    await pipe.exec();
  }

  /**
   * Called after the write committed: the amounts are no longer outstanding; `db` already excludes them and a
   * budget period's `used` now includes them. One script for the whole batch.
   */
  async written(amounts: Map<string, number>, budgets: BudgetAmounts = new Map()): Promise<void> {
    const keys: string[] = [];
    const args: string[] = [String(amounts.size)];
    for (const [account, quota] of amounts) {
      const k = this.keys(account);
      keys.push(k.db, k.out, k.gen);
      args.push(String(quota));
    }
    for (const [account, periods] of budgets)
      for (const [end, quota] of periods) {
        const k = this.budgetKeys(account, end);
        keys.push(k.used, k.out);
        args.push(String(quota));
      }
    if (keys.length === 0) return;
    await this.redis.eval(FLUSHED, keys.length, ...keys, ...args);
  }
}
