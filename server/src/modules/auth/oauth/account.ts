import { randomBytes } from 'node:crypto';
import { UserStatus } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { ApiError } from '../../../infra/envelope.ts';
import { sessionTagOf } from '../../users/cache.ts';
import { createAccount } from '../../users/service.ts';
import { usernameTaken } from '../../users/store.ts';
import { sessionUser } from '../guard.ts';
import { hashPassword } from '../password.ts';
import { setSession } from '../session.ts';
import type { ExternalIdentity } from './providers.ts';

export type IdField = 'github_id' | 'oidc_id' | 'linux_do_id' | 'wechat_id' | 'telegram_id';

export interface SignInOptions {
  field: IdField;
  /** Shown in messages: "GitHub", "WeChat"... */
  label: string;
  /** Prefix of generated usernames. */
  prefix: string;
  /** False for providers that only sign in accounts bound beforehand (Telegram). */
  mayRegister: boolean;
  affCode?: string;
}

/** A username for a new account: the provider's name when it fits and is free, else prefix + random. */
async function pickUsername(ctx: AppContext, preferred: string | undefined, prefix: string): Promise<string> {
  const clean = (preferred ?? '').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 12);
  if (clean && !(await usernameTaken(ctx.db.db, clean))) return clean;
  for (;;) {
    const name = `${prefix}_${randomBytes(4).toString('hex')}`.slice(0, 12);
    if (!(await usernameTaken(ctx.db.db, name))) return name;
  }
}

/**
 * Finishes a third-party sign-in. With a valid console session it binds the identity to that user (reply
 * message "bind", which the console relies on); otherwise it logs in the bound user, or creates one when
 * registration is open. An identity bound to another account (deleted ones included) is refused.
 */
export async function completeSignIn(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  identity: ExternalIdentity,
  opts: SignInOptions,
): Promise<{ message: string; data?: unknown }> {
  const db = ctx.db.db;
  const owner = await db
    .selectFrom('users')
    .selectAll()
    .where(opts.field, '=', identity.id)
    .orderBy('id')
    .executeTakeFirst();

  const current = await sessionUser(ctx, req);
  if (current) {
    if (current.status !== UserStatus.Enabled) throw new ApiError('this user has been banned', 403);
    if (owner && Number(owner.id) !== current.id)
      throw new ApiError(`this ${opts.label} account is already bound to another user`);
    await db
      .updateTable('users')
      .set({ [opts.field]: identity.id })
      .where('id', '=', current.id)
      .execute();
    await ctx.bus.publish(`user:${current.id}`);
    return { message: 'bind' };
  }

  let row = owner;
  if (row && row.deleted_at !== null)
    throw new ApiError('the account bound to this sign-in has been deleted', 403);
  if (!row) {
    if (!opts.mayRegister)
      throw new ApiError(
        `this ${opts.label} account is not bound to any user; bind it in personal settings first`,
      );
    if (!ctx.options.bool('RegisterEnabled'))
      throw new ApiError('new user registration has been closed by the administrator', 403);
    const username = await pickUsername(ctx, identity.username, opts.prefix);
    const id = await createAccount(
      ctx,
      {
        username,
        passwordHash: await hashPassword(randomBytes(24).toString('base64url')),
        display_name: (identity.displayName || username).slice(0, 20),
        email: identity.email && identity.email.length <= 50 ? identity.email : '',
        [opts.field]: identity.id,
      },
      { affCode: opts.affCode || undefined, ip: req.ip },
    );
    row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
  if (row.status !== UserStatus.Enabled) throw new ApiError('this user has been banned', 403);
  setSession(req, reply, Number(row.id), sessionTagOf(row));
  return {
    message: '',
    data: {
      id: Number(row.id),
      username: row.username,
      display_name: row.display_name,
      role: row.role,
      status: row.status,
      group: row.group,
    },
  };
}
