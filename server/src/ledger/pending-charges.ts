import type { Balance } from './balance.ts';
import type { BatchRows } from './batch-commit.ts';

/** One settled request's amounts, as the ledger writer takes them (its log row goes to the log packer). */
export interface ChargeAmounts {
  userId: number;
  user: Balance;
  tokenId: number;
  token?: Balance;
  channelId: number;
  quota: number;
  /** False when the upstream produced nothing: the counters are not moved. */
  countRequest: boolean;
}

interface UserSum {
  quota: number;
  requests: number;
}

/**
 * The charges settled since the last flush, summed per account as they come: per user (quota, requests), per
 * token, per channel, and per in-memory balance (the objects whose `pending` the charges raised). A charge kept
 * as an object until the flush outlived two young collections and was promoted, one per request; the sums are
 * one entry per account however many requests it made.
 */
export class PendingCharges {
  private readonly users = new Map<number, UserSum>();
  private readonly tokens = new Map<number, number>();
  private readonly channels = new Map<number, number>();
  /** Keyed by the object, not the account id: a reloaded cache entry may hold a new one. */
  private readonly balances = new Map<Balance, number>();
  private count = 0;

  /** Charges summed so far. */
  get size(): number {
    return this.count;
  }

  add(c: ChargeAmounts): void {
    this.count++;
    if (!c.countRequest && c.quota === 0) return;
    const u = this.users.get(c.userId);
    if (u) {
      u.quota += c.quota;
      if (c.countRequest) u.requests++;
    } else this.users.set(c.userId, { quota: c.quota, requests: c.countRequest ? 1 : 0 });
    if (c.tokenId > 0) this.tokens.set(c.tokenId, (this.tokens.get(c.tokenId) ?? 0) + c.quota);
    if (c.channelId > 0) this.channels.set(c.channelId, (this.channels.get(c.channelId) ?? 0) + c.quota);
    if (c.quota === 0) return;
    this.balances.set(c.user, (this.balances.get(c.user) ?? 0) + c.quota);
    if (c.token) this.balances.set(c.token, (this.balances.get(c.token) ?? 0) + c.quota);
  }

  /** Adds the sums of a batch whose write failed to these (the charges settled since it was taken). */
  putBack(taken: PendingCharges): void {
    this.count += taken.count;
    for (const [id, s] of taken.users) {
      const u = this.users.get(id);
      if (u) {
        u.quota += s.quota;
        u.requests += s.requests;
      } else this.users.set(id, s);
    }
    for (const [id, q] of taken.tokens) this.tokens.set(id, (this.tokens.get(id) ?? 0) + q);
    for (const [id, q] of taken.channels) this.channels.set(id, (this.channels.get(id) ?? 0) + q);
    for (const [b, q] of taken.balances) this.balances.set(b, (this.balances.get(b) ?? 0) + q);
  }

  /**
   * The set-based UPDATE rows: per user [id, quota, quota, requests], per token [id, quota, quota, now], per
   * channel [id, quota] (channels whose charges came to 0 left out).
   */
  rows(now: number): Pick<BatchRows, 'users' | 'tokens' | 'channels'> {
    return {
      users: [...this.users].map(([id, u]) => [id, u.quota, u.quota, u.requests]),
      tokens: [...this.tokens].map(([id, q]) => [id, q, q, now]),
      channels: [...this.channels].filter(([, q]) => q !== 0),
    };
  }

  /** Each user's sums, for the console's in-memory snapshot once they are written. */
  perUser(): ReadonlyMap<number, Readonly<UserSum>> {
    return this.users;
  }

  /** Moves the written amounts from each balance's `pending` to its `db`. */
  settleBalances(): void {
    for (const [b, q] of this.balances) {
      b.db -= q;
      b.pending -= q;
    }
  }
}
