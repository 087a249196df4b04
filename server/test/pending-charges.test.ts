import { describe, expect, it } from 'vitest';
import { Balance } from '../src/ledger/balance.ts';
import { type ChargeAmounts, PendingCharges } from '../src/ledger/pending-charges.ts';

/** Two users (the first with two tokens), their balances with every charge already pending, as settle leaves them. */
function accounts() {
  const u1 = new Balance(10_000, 'user:1');
  const u2 = new Balance(5_000, 'user:2');
  const t11 = new Balance(3_000, 'token:11');
  const t12 = new Balance(3_000, 'token:12');
  const charge = (c: Partial<ChargeAmounts> & Pick<ChargeAmounts, 'userId' | 'user'>): ChargeAmounts => {
    const out = { tokenId: 0, channelId: 0, quota: 0, countRequest: true, ...c };
    out.user.pending += out.quota;
    if (out.token) out.token.pending += out.quota;
    return out;
  };
  return { u1, u2, t11, t12, charge };
}

describe('pending charges', () => {
  it('sums per user, token and channel what one row per charge would have moved', () => {
    const { u1, u2, t11, t12, charge } = accounts();
    const pending = new PendingCharges();
    pending.add(charge({ userId: 1, user: u1, tokenId: 11, token: t11, channelId: 7, quota: 100 }));
    pending.add(charge({ userId: 1, user: u1, tokenId: 12, token: t12, channelId: 7, quota: 40 }));
    pending.add(charge({ userId: 2, user: u2, tokenId: 0, channelId: 8, quota: 25 }));
    // The upstream produced nothing: no counter moves, no request counted.
    pending.add(charge({ userId: 2, user: u2, channelId: 8, quota: 0, countRequest: false }));
    // Answered but free (a cached or zero-priced answer): a request counted, the token's access time moved.
    pending.add(charge({ userId: 1, user: u1, tokenId: 11, token: t11, channelId: 9, quota: 0 }));
    expect(pending.size).toBe(5);
    expect(pending.rows(1_700_000_000)).toEqual({
      users: [
        [1, 140, 140, 3],
        [2, 25, 25, 1],
      ],
      tokens: [
        [11, 100, 100, 1_700_000_000],
        [12, 40, 40, 1_700_000_000],
      ],
      channels: [
        [7, 140],
        [8, 25],
      ],
    });
    expect([...pending.perUser()]).toEqual([
      [1, { quota: 140, requests: 3 }],
      [2, { quota: 25, requests: 1 }],
    ]);
  });

  it('moves each balance from pending to db once written, and a new balance object of the same account separately', () => {
    const { u1, t11, charge } = accounts();
    const reloaded = new Balance(9_000, 'user:1');
    const pending = new PendingCharges();
    pending.add(charge({ userId: 1, user: u1, tokenId: 11, token: t11, quota: 70 }));
    pending.add(charge({ userId: 1, user: reloaded, tokenId: 11, token: t11, quota: 30 }));
    pending.settleBalances();
    expect([u1.db, u1.pending, reloaded.db, reloaded.pending]).toEqual([9_930, 0, 8_970, 0]);
    expect([t11.db, t11.pending]).toEqual([2_900, 0]);
  });

  it('a batch whose write failed, put back, adds its sums to the charges settled since', () => {
    const { u1, u2, t11, charge } = accounts();
    const taken = new PendingCharges();
    taken.add(charge({ userId: 1, user: u1, tokenId: 11, token: t11, channelId: 7, quota: 100 }));
    const pending = new PendingCharges();
    pending.add(charge({ userId: 1, user: u1, tokenId: 11, token: t11, channelId: 7, quota: 5 }));
    pending.add(charge({ userId: 2, user: u2, channelId: 8, quota: 9 }));
    pending.putBack(taken);
    expect(pending.size).toBe(3);
    expect(pending.rows(1)).toEqual({
      users: [
        [1, 105, 105, 2],
        [2, 9, 9, 1],
      ],
      tokens: [[11, 105, 105, 1]],
      channels: [
        [7, 105],
        [8, 9],
      ],
    });
    pending.settleBalances();
    expect([u1.db, u1.pending, t11.db, t11.pending, u2.db, u2.pending]).toEqual([
      9_895, 0, 2_895, 0, 4_991, 0,
    ]);
  });
});
