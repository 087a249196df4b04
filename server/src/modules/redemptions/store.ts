import { randomBytes } from 'node:crypto';
import { RedemptionStatus } from '@modelgate/shared';
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, RedemptionsTable } from '../../db/schema.ts';

export type Redemption = Selectable<RedemptionsTable>;
type Q = Kysely<Database> | Transaction<Database>;

/** 32 random hex characters (128 bits): unguessable, and safe in a URL or a text file. */
export const newRedemptionKey = () => randomBytes(16).toString('hex');

const now = () => Math.floor(Date.now() / 1000);
const live = (db: Q) => db.selectFrom('redemptions').where('deleted_at', 'is', null);

export async function insertCodes(
  db: Kysely<Database>,
  input: { creatorId: number; name: string; quota: number; count: number },
): Promise<string[]> {
  const keys = Array.from({ length: input.count }, newRedemptionKey);
  const created = now();
  // One statement inside one transaction: all codes or none.
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('redemptions')
      .values(
        keys.map((key) => ({
          user_id: input.creatorId,
          key,
          status: RedemptionStatus.Unused,
          name: input.name,
          quota: input.quota,
          created_time: created,
          redeemed_time: 0,
          used_user_id: 0,
          deleted_at: null,
        })),
      )
      .execute();
  });
  return keys;
}

export async function listCodes(
  db: Kysely<Database>,
  opts: { page: number; pageSize: number; keyword?: string },
) {
  let q = live(db);
  const kw = opts.keyword?.trim();
  if (kw) {
    // '!' as the LIKE escape: a backslash means different things in MySQL and PostgreSQL string literals.
    const esc = kw.replace(/[!%_]/g, (c) => `!${c}`);
    q = q.where((eb) => {
      const ors = [
        eb('name', 'like', sql<string>`${`%${esc}%`} escape '!'`),
        eb('key', 'like', sql<string>`${`${esc}%`} escape '!'`),
      ];
      if (/^\d+$/.test(kw) && Number(kw) <= Number.MAX_SAFE_INTEGER) ors.push(eb('id', '=', Number(kw)));
      return eb.or(ors);
    });
  }
  const [items, count] = await Promise.all([
    q
      .selectAll()
      .orderBy('id', 'desc')
      .limit(opts.pageSize)
      .offset((opts.page - 1) * opts.pageSize)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export const getCode = (db: Q, id: number) => live(db).selectAll().where('id', '=', id).executeTakeFirst();

/** Name and quota of a code nobody has used yet; false when it does not exist or is no longer unused. */
export async function updateUnusedCode(
  db: Kysely<Database>,
  id: number,
  patch: { name: string; quota: number },
): Promise<boolean> {
  const r = await db
    .updateTable('redemptions')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', RedemptionStatus.Unused)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Enables (1) or disables (2) a code; a used code keeps its status. */
export async function setCodeStatus(db: Kysely<Database>, id: number, status: 1 | 2): Promise<boolean> {
  const r = await db
    .updateTable('redemptions')
    .set({ status })
    .where('id', '=', id)
    .where('status', '!=', RedemptionStatus.Used)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function softDeleteCode(db: Kysely<Database>, id: number): Promise<boolean> {
  const r = await db
    .updateTable('redemptions')
    .set({ deleted_at: now() })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export type ClaimResult =
  | { ok: true; code: Redemption }
  | { ok: false; reason: 'invalid' | 'disabled' | 'used' };

/**
 * Marks an unused code as used by `userId` inside the caller's transaction. The UPDATE is conditional on
 * status = unused, so of any number of concurrent claims exactly one changes the row; the others see 0 rows.
 */
export async function claimCode(
  trx: Transaction<Database>,
  key: string,
  userId: number,
): Promise<ClaimResult> {
  const code = await live(trx).selectAll().where('key', '=', key).executeTakeFirst();
  if (!code) return { ok: false, reason: 'invalid' };
  const r = await trx
    .updateTable('redemptions')
    .set({ status: RedemptionStatus.Used, used_user_id: userId, redeemed_time: now() })
    .where('id', '=', code.id)
    .where('status', '=', RedemptionStatus.Unused)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return { ok: true, code };
  const fresh = await trx
    .selectFrom('redemptions')
    .select('status')
    .where('id', '=', code.id)
    .executeTakeFirst();
  return { ok: false, reason: fresh?.status === RedemptionStatus.Disabled ? 'disabled' : 'used' };
}
