import type { AppContext } from '../../context.ts';
import { Balance } from '../../ledger/balance.ts';
import { BUDGET_COLUMNS, Budget } from '../../ledger/budget/budget.ts';
import { readConsistent } from '../../ledger/reload.ts';
import type { LedgerWriter } from '../../ledger/writer.ts';
import type { UserSnapshot } from '../../modules/users/cache.ts';

/** A user as the relay sees one request: the console's in-memory snapshot plus the ledger's balance. */
export type UserEntry = Omit<UserSnapshot, 'quota'> & { balance: Balance };

/**
 * The spendable balance of each user the relay has served, next to `ctx.users` (role, status, group,
 * setting). The balance is read once, then kept in memory; `user:<id>` (a console credit or edit) rereads the
 * database value while keeping what is pending or held for requests in flight.
 */
export class UserCache {
  private balances = new Map<number, Balance>();
  /** Told about every console change to a user's balance (the shared hold store rereads it). */
  onReload?: (account: string) => void;
  /** The ledger's clock, which budget periods are read from. */
  now: () => number = Date.now;
  private loading = new Map<number, Promise<Balance | null>>();
  /** The entry built for each console snapshot (a new snapshot after an edit or TTL reload gets a new one). */
  private entries = new WeakMap<UserSnapshot, UserEntry>();

  constructor(
    private readonly ctx: AppContext,
    private readonly writer: LedgerWriter,
  ) {
    ctx.bus.subscribe('user:*', (id) => {
      const n = Number(id);
      // The shared hold store (Redis) may hold this balance even when this instance never loaded it.
      this.onReload?.(`user:${n}`);
      if (this.balances.has(n))
        return this.refresh(n).catch((err) => ctx.log.error({ err }, 'user balance reload failed'));
    });
  }

  private readQuota(id: number) {
    return this.ctx.db.db
      .selectFrom('users')
      .select(['quota', ...BUDGET_COLUMNS])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  private balance(id: number): Balance | null | Promise<Balance | null> {
    const hit = this.balances.get(id);
    if (hit) return hit;
    let p = this.loading.get(id);
    if (!p) {
      p = readConsistent(
        this.writer,
        () => this.readQuota(id),
        (row) => {
          if (!row) return null;
          let b = this.balances.get(id);
          if (!b) {
            b = new Balance(Number(row.quota), `user:${id}`);
            b.budget = new Budget(b.account);
            b.budget.configure(row, this.now());
            this.balances.set(id, b);
          }
          return b;
        },
      ).finally(() => this.loading.delete(id));
      this.loading.set(id, p);
    }
    return p;
  }

  /**
   * The user (null when unknown or deleted) with the balance the relay spends from: at once when both are in
   * memory (every request but a user's first), without a promise or an await on the request path.
   */
  get(id: number): UserEntry | null | Promise<UserEntry | null> {
    const snap = this.ctx.users.peek(id);
    const hit = snap && this.entries.get(snap);
    if (hit && hit.balance === this.balances.get(id)) return hit;
    return this.load(id);
  }

  private async load(id: number): Promise<UserEntry | null> {
    const snap = await this.ctx.users.get(id);
    if (!snap) return null;
    const hit = this.entries.get(snap);
    if (hit && hit.balance === this.balances.get(id)) return hit;
    const balance = await this.balance(id);
    if (!balance) return null;
    const { quota: _quota, ...rest } = snap;
    const entry = { ...rest, balance };
    this.entries.set(snap, entry);
    return entry;
  }

  /** The balance, when the relay has loaded it. */
  peekBalance(id: number): Balance | undefined {
    return this.balances.get(id);
  }

  async refresh(id: number): Promise<void> {
    await readConsistent(
      this.writer,
      () => this.readQuota(id),
      (row) => {
        const b = this.balances.get(id);
        if (!b || !row) return;
        b.db = Number(row.quota);
        b.budget?.configure(row, this.now());
      },
    );
  }
}
