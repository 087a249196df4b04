import { Role, UserStatus } from '@modelgate/shared';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import {
  afterCommit,
  creditUser,
  describeQuota,
  LedgerLogType,
  type LedgerTx,
  ledgerTxOn,
} from '../../ledger/credit.ts';
import { hashAccessToken } from '../../modules/auth/access-token.ts';
import { freshAffCode } from '../../modules/users/aff-code.ts';
import {
  hasHiddenCharacters,
  IMPERSONATION,
  nameSkeleton,
  usernameKey,
  withoutHiddenCharacters,
} from '../../modules/users/names.ts';
import {
  bumpSequence,
  commitRows,
  errorText,
  hasColumn,
  type ImportJob,
  inSavepoint,
  sourceBatches,
} from '../job.ts';
import { exactInt, fit, int, str, unixSeconds } from '../values.ts';

type UserInsert = Insertable<Database['users']>;
interface Planned {
  id: number;
  row: UserInsert;
  /** Spendable balance, credited through the ledger after the row is in. */
  quota: number;
  deletedAt: number | null;
}

const BCRYPT = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
const ROLES = new Set<number>([Role.Common, Role.Admin, Role.Root]);

/**
 * Users keep their id (tokens, logs and top-ups refer to it), name, bcrypt hash (so passwords keep working),
 * bindings, group, counters and referral fields. The balance arrives through the ledger: the row goes in
 * with quota 0 and a system-log credit carries the old balance over. A source user that is already here
 * (same id, same name) is left alone; one whose id or name another account holds is listed and skipped,
 * and so are its tokens and top-ups.
 */
export async function importUsers(job: ImportJob): Promise<void> {
  const e = job.report.entity('users');
  const affTaken = new Set<string>();
  const namesSeen = new Map<string, number>();
  /** Name skeletons of the administrators, here and imported so far. */
  const admins = new Map<string, number>();
  const from = job.flavor;
  for await (const batch of sourceBatches(job, 'users')) {
    e.read += batch.length;
    const planned: Planned[] = [];
    for (const r of batch) {
      const p = plan(job, r);
      if (typeof p === 'string') {
        e.skip(str(r.id), p);
        continue;
      }
      const key = p.row.username_key as string;
      const twin = namesSeen.get(key);
      if (twin !== undefined) {
        e.skip(p.id, `its name differs only in case or width from user ${twin}'s, and names are unique here`);
        continue;
      }
      namesSeen.set(key, p.id);
      planned.push(p);
    }
    const fresh = await lookAlikes(job, await againstTarget(job, planned), admins);
    for (const p of fresh) {
      const code = String(p.row.aff_code);
      const clash =
        !code ||
        affTaken.has(code) ||
        (await job.db.selectFrom('users').select('id').where('aff_code', '=', code).executeTakeFirst());
      if (clash) {
        p.row.aff_code = await freshAffCode(job.db);
        if (code) e.note('referral code taken by another account here: a new code was given');
      }
      affTaken.add(String(p.row.aff_code));
    }
    if (job.dryRun) {
      e.imported += fresh.length;
      for (const p of fresh) job.users.add(p.id);
      continue;
    }
    const written = await commitRows<Planned, LedgerTx>(
      fresh,
      (fn) =>
        inSavepoint(job, async (sp) => {
          const tx = ledgerTxOn(sp as Transaction<Database>);
          await fn(tx);
          job.afterCommit.push(() => afterCommit(job.ctx, tx));
        }),
      (tx, p) => insertUser(job, tx, p, from),
      (p, err) => e.skip(p.id, `could not be written: ${errorText(err)}`),
    );
    e.imported += written.length;
    for (const p of written) job.users.add(p.id);
  }
  if (!job.dryRun && e.imported) await bumpSequence(job, job.db, 'users');
}

function plan(job: ImportJob, r: Record<string, unknown>): Planned | string {
  const id = exactInt(r.id);
  if (!id || id <= 0) return 'no valid id';
  const username = str(r.username).trim();
  if (!username) return 'empty username';
  if (username.length > 64) return 'username longer than 64 characters';
  if (hasHiddenCharacters(username))
    return 'username holds control, invisible or text-direction characters, which names here cannot';
  const quota = exactInt(r.quota);
  if (quota === undefined) return 'balance is not an exact integer';
  const e = job.report.entity('users');
  let password = str(r.password);
  if (password && !BCRYPT.test(password)) {
    e.note('password is not a bcrypt hash: password sign-in is off for this user until a reset');
    password = '';
  }
  let role = int(r.role, Role.Common);
  if (!ROLES.has(role)) {
    e.note(`role ${role} does not exist here: imported as a common user`);
    role = Role.Common;
  }
  let status = int(r.status, UserStatus.Enabled);
  let deletedAt = hasColumn(job, 'users', 'deleted_at') ? unixSeconds(r.deleted_at) : null;
  // one-api marks deleted users with status 3 instead of a deletion time.
  if (status === UserStatus.Deleted && deletedAt === null) deletedAt = Math.floor(Date.now() / 1000);
  if (deletedAt !== null) status = UserStatus.Deleted;
  else if (status !== UserStatus.Enabled && status !== UserStatus.Disabled) status = UserStatus.Disabled;
  for (const col of ['lark_id', 'discord_id'])
    if (str(r[col]).trim())
      e.note(`${col.replace('_id', '')} sign-in binding has no equivalent here and was dropped`);
  const access = str(r.access_token).trim();
  const row: UserInsert = {
    id,
    username,
    username_key: usernameKey(username),
    password,
    display_name: cleanDisplayName(r.display_name, username, e),
    role,
    status,
    email: fit(r.email, 128),
    github_id: fit(r.github_id, 128),
    oidc_id: fit(r.oidc_id, 191),
    wechat_id: fit(r.wechat_id, 128),
    telegram_id: fit(r.telegram_id, 128),
    linux_do_id: fit(r.linux_do_id, 128),
    // Only the hash of a system access token is kept here; scripts using the old token keep working.
    access_token: access ? hashAccessToken(access) : null,
    quota: 0,
    used_quota: int(r.used_quota),
    request_count: int(r.request_count),
    group: fit(r.group, 64).trim() || 'default',
    aff_code: fit(r.aff_code, 32).trim(),
    aff_count: int(r.aff_count),
    aff_quota: int(r.aff_quota),
    // new-api's column for the lifetime referral reward is `aff_history`.
    aff_history_quota: int(r.aff_history ?? r.aff_history_quota),
    inviter_id: int(r.inviter_id),
    setting: str(r.setting),
    created_at: int(r.created_at) || Math.floor(Date.now() / 1000),
    deleted_at: null,
  };
  if (quota < 0) {
    e.note('negative balance (an overdraft in the old gateway): imported as 0');
  }
  return { id, row, quota: Math.max(0, quota), deletedAt };
}

/** The display name without control, invisible or text-direction characters (the console refuses them). */
function cleanDisplayName(
  raw: unknown,
  username: string,
  e: ReturnType<ImportJob['report']['entity']>,
): string {
  const name = fit(raw, 64);
  const clean = withoutHiddenCharacters(name).trim();
  if (clean !== name.trim())
    e.note('control, invisible or text-direction characters were taken out of a display name');
  return clean || username;
}

/**
 * Skips users whose name reads like an administrator's (here already, or coming in with this import) without
 * being that account: look-alike letters never make a second root or admin.
 */
async function lookAlikes(
  job: ImportJob,
  planned: Planned[],
  admins: Map<string, number>,
): Promise<Planned[]> {
  const e = job.report.entity('users');
  if (admins.size === 0)
    for (const a of await job.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('role', '>=', Role.Admin)
      .execute())
      admins.set(nameSkeleton(a.username), Number(a.id));
  const kept: Planned[] = [];
  for (const p of planned) {
    const holder = admins.get(nameSkeleton(p.row.username as string));
    if (holder !== undefined && holder !== p.id) {
      e.skip(p.id, `${IMPERSONATION} (it reads like the name of admin ${holder})`);
      continue;
    }
    if (Number(p.row.role) >= Role.Admin) admins.set(nameSkeleton(p.row.username as string), p.id);
    kept.push(p);
  }
  return kept;
}

/** Drops users already here (same id and name) and lists those whose id or name another account holds. */
async function againstTarget(job: ImportJob, planned: Planned[]): Promise<Planned[]> {
  if (planned.length === 0) return [];
  const e = job.report.entity('users');
  const ids = planned.map((p) => p.id);
  const keys = planned.map((p) => p.row.username_key as string);
  const existing = await job.db
    .selectFrom('users')
    .select(['id', 'username', 'username_key'])
    .where((eb) => eb.or([eb('id', 'in', ids), eb('username_key', 'in', keys)]))
    .execute();
  const fresh: Planned[] = [];
  for (const p of planned) {
    const byId = existing.find((x) => Number(x.id) === p.id);
    const byName = existing.find((x) => x.username_key === p.row.username_key);
    if (byId && byId.username_key === p.row.username_key) {
      e.unchanged++;
      job.users.add(p.id);
    } else if (byId) e.skip(p.id, `id ${p.id} belongs to another account here ("${byId.username}")`);
    else if (byName) e.skip(p.id, `the name "${p.row.username}" belongs to account ${byName.id} here`);
    else fresh.push(p);
  }
  return fresh;
}

async function insertUser(job: ImportJob, tx: LedgerTx, p: Planned, from: string): Promise<void> {
  await tx.trx.insertInto('users').values(p.row).execute();
  if (p.quota > 0)
    await creditUser(
      job.ctx,
      {
        userId: p.id,
        delta: p.quota,
        logType: LedgerLogType.System,
        content: `Balance of ${describeQuota(job.ctx, p.quota)} carried over from ${from} (user ${p.id})`,
        other: { imported_from: from, source_user_id: p.id },
      },
      tx,
    );
  if (p.deletedAt !== null)
    await tx.trx.updateTable('users').set({ deleted_at: p.deletedAt }).where('id', '=', p.id).execute();
}
