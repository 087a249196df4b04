import type { AppContext } from '../../context.ts';
import {
  creditAffiliate,
  creditUser,
  describeQuota,
  LedgerLogType,
  ledgerTransaction,
} from '../../ledger/credit.ts';
import { insertUser, type NewUser } from './store.ts';

export interface AccountOptions {
  /** The inviter's referral code (registration with `aff_code`). */
  affCode?: string;
  /** Quota to credit instead of QuotaForNewUser (setup gives root a fixed amount). */
  initialQuota?: number;
  ip?: string;
}

/**
 * Creates a user and applies the sign-up rewards in one transaction: QuotaForNewUser, and with a valid
 * referral code QuotaForInvitee for the new user and QuotaForInviter for the inviter's invitation balance.
 * Every reward is a ledger movement with its log row. Returns the new user's id.
 */
export async function createAccount(
  ctx: AppContext,
  user: NewUser,
  opts: AccountOptions = {},
): Promise<number> {
  const o = ctx.options;
  return ledgerTransaction(ctx, async (tx) => {
    let inviterId = 0;
    if (opts.affCode) {
      const inviter = await tx.trx
        .selectFrom('users')
        .select('id')
        .where('aff_code', '=', opts.affCode)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      inviterId = inviter ? Number(inviter.id) : 0;
    }
    const id = await insertUser(tx.trx, { ...user, inviter_id: inviterId });
    const initial = opts.initialQuota ?? o.int('QuotaForNewUser');
    if (initial > 0) {
      const content =
        opts.initialQuota === undefined
          ? `New user bonus ${describeQuota(ctx, initial)}`
          : `Initial quota ${describeQuota(ctx, initial)}`;
      await creditUser(
        ctx,
        { userId: id, delta: initial, logType: LedgerLogType.System, content, ip: opts.ip },
        tx,
      );
    }
    if (inviterId) {
      const forInvitee = o.int('QuotaForInvitee');
      if (forInvitee > 0) {
        await creditUser(
          ctx,
          {
            userId: id,
            delta: forInvitee,
            logType: LedgerLogType.System,
            content: `Invitation code bonus ${describeQuota(ctx, forInvitee)}`,
            other: { content_code: 'invite_bonus' },
            ip: opts.ip,
          },
          tx,
        );
      }
      const forInviter = o.int('QuotaForInviter');
      if (forInviter > 0) await creditAffiliate(ctx, inviterId, forInviter, tx);
      else
        await tx.trx
          .updateTable('users')
          .set((eb) => ({ aff_count: eb('aff_count', '+', 1) }))
          .where('id', '=', inviterId)
          .execute();
    }
    tx.touched.add(id);
    return id;
  });
}
