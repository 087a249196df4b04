import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { type Balance, type Hold, type HoldRefusal, release, settleHold, tryHold } from './balance.ts';
import { RedisHolds } from './redis-holds.ts';
import type { LedgerWriter } from './writer.ts';

/**
 * The relay's side of the ledger: hold before a call, settle or release after it. Holds are checked in
 * memory (atomic within one process) and, when Redis is configured, also in Redis so that every instance
 * spends the same balance. Durable writes go through the batched writer.
 */
export class Ledger {
  readonly shared?: RedisHolds;

  constructor(
    private readonly ctx: AppContext,
    readonly writer: LedgerWriter,
  ) {
    if (!ctx.redis) return;
    const ttl = Math.max(600, 2 * ctx.config.relayTimeoutSec);
    const namespace = createHash('sha256')
      .update(ctx.config.sqlDsn || ctx.config.sqlitePath)
      .digest('hex')
      .slice(0, 12);
    const shared = new RedisHolds(ctx.redis, namespace, ttl, (account) => this.readDb(account));
    this.shared = shared;
    writer.hooks = {
      before: (accounts) => shared.writing(accounts),
      after: async (amounts) => {
        for (const [account, quota] of amounts) await shared.written(account, quota);
      },
    };
  }

  private async readDb(account: string): Promise<number | null> {
    const [kind, idText] = account.split(':');
    const id = Number(idText);
    const { db } = this.ctx.db;
    if (kind === 'user') {
      const row = await db.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirst();
      return row ? Number(row.quota) : null;
    }
    const row = await db.selectFrom('tokens').select('remain_quota').where('id', '=', id).executeTakeFirst();
    return row ? Number(row.remain_quota) : null;
  }

  async hold(
    user: Balance,
    token: Balance | undefined,
    amount: number,
    tokenUnlimited: boolean,
  ): Promise<Hold | HoldRefusal> {
    const local = tryHold(user, token, amount, tokenUnlimited);
    if (!this.shared || typeof local === 'string') return local;
    let verdict: 'ok' | HoldRefusal;
    try {
      verdict = await this.shared.hold(user, token, amount, !tokenUnlimited);
    } catch (err) {
      release(local);
      throw err;
    }
    if (verdict !== 'ok') {
      release(local);
      return verdict;
    }
    return local;
  }

  release(hold: Hold): void {
    if (hold.done) return;
    release(hold);
    this.shareAdjust(hold, -hold.amount);
  }

  settle(hold: Hold, quota: number): boolean {
    if (!settleHold(hold, quota)) return false;
    this.shareAdjust(hold, quota - hold.amount);
    return true;
  }

  /** A console change to an account: reread its balance in the shared store too. */
  reloadShared(account: string): void {
    this.shared
      ?.load(account, true)
      .catch((err) => this.ctx.log.error({ err, account }, 'shared balance reload failed'));
  }

  private shareAdjust(hold: Hold, delta: number) {
    if (!this.shared) return;
    const accounts = hold.token ? [hold.user, hold.token] : [hold.user];
    this.shared
      .adjust(accounts, delta)
      .catch((err) => this.ctx.log.error({ err }, 'shared hold update failed'));
  }
}
