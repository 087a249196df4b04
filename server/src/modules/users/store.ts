import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Database, UsersTable } from '../../db/schema.ts';
import { ApiError } from '../../infra/envelope.ts';
import { freshAffCode } from './aff-code.ts';
import { IMPERSONATION, impersonatesAdmin, usernameKey } from './names.ts';

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  username: string;
  /** Already hashed. */
  passwordHash: string;
  display_name?: string;
  role?: number;
  email?: string;
  group?: string;
  inviter_id?: number;
  /** Provider ids for third-party sign-in. */
  github_id?: string;
  oidc_id?: string;
  wechat_id?: string;
  telegram_id?: string;
  linux_do_id?: string;
}

export const USERNAME_TAKEN = 'username already exists or belongs to a deleted account';

/**
 * Inserts a user with quota 0 (rewards go through the ledger) and a fresh referral code. A username taken by
 * any row, deleted ones included, is a 400. Works inside a transaction (pass the transaction as `db`).
 */
export async function insertUser(db: Kysely<Database>, u: NewUser): Promise<number> {
  if (await impersonatesAdmin(db, u.username)) throw new ApiError(IMPERSONATION);
  const aff_code = await freshAffCode(db);
  try {
    const res = await db
      .insertInto('users')
      .values({
        username: u.username,
        username_key: usernameKey(u.username),
        password: u.passwordHash,
        display_name: u.display_name || u.username,
        role: u.role ?? 1,
        status: 1,
        email: u.email ?? '',
        github_id: u.github_id ?? '',
        oidc_id: u.oidc_id ?? '',
        wechat_id: u.wechat_id ?? '',
        telegram_id: u.telegram_id ?? '',
        linux_do_id: u.linux_do_id ?? '',
        access_token: null,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: u.group ?? 'default',
        aff_code,
        aff_count: 0,
        aff_quota: 0,
        aff_history_quota: 0,
        inviter_id: u.inviter_id ?? 0,
        setting: '',
        created_at: Math.floor(Date.now() / 1000),
        deleted_at: null,
      })
      .executeTakeFirst();
    if (res.insertId !== undefined) return Number(res.insertId);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(USERNAME_TAKEN);
    throw err;
  }
  // PostgreSQL reports no insert id without RETURNING; the username is unique.
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('username', '=', u.username)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function usernameTaken(db: Kysely<Database>, username: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('username_key', '=', usernameKey(username))
    .executeTakeFirst();
  return !!row || (await impersonatesAdmin(db, username));
}

/** A live (not deleted) user by username or e-mail, for password login. */
export async function findForLogin(db: Kysely<Database>, login: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([eb('username', '=', login), eb.and([eb('email', '=', login), eb('email', '!=', '')])]),
    )
    .orderBy('id')
    .executeTakeFirst();
}

export async function findById(
  db: Kysely<Database>,
  id: number,
  opts: { withDeleted?: boolean } = {},
): Promise<UserRow | undefined> {
  let q = db.selectFrom('users').selectAll().where('id', '=', id);
  if (!opts.withDeleted) q = q.where('deleted_at', 'is', null);
  return q.executeTakeFirst();
}
