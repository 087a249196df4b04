import { randomBytes } from 'node:crypto';
import { TopupStatus } from '@modelgate/shared';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, TopUpsTable } from '../../db/schema.ts';

export type TopupOrder = Selectable<TopUpsTable>;

/** Unique and unguessable: USR<user>NO<12 random chars><unix seconds>. */
export const newTradeNo = (userId: number) =>
  `USR${userId}NO${randomBytes(6).toString('hex')}${Math.floor(Date.now() / 1000)}`;

export async function insertOrder(
  db: Kysely<Database>,
  o: { userId: number; quota: number; money: number; method: string; tradeNo: string },
): Promise<void> {
  await db
    .insertInto('top_ups')
    .values({
      user_id: o.userId,
      amount: o.quota,
      money: o.money,
      trade_no: o.tradeNo,
      payment_method: o.method,
      create_time: Math.floor(Date.now() / 1000),
      complete_time: 0,
      status: TopupStatus.Pending,
    })
    .execute();
}

export const findOrder = (db: Kysely<Database> | Transaction<Database>, tradeNo: string) =>
  db.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();

/**
 * pending -> success inside the caller's transaction. Conditional on the status, so a callback delivered
 * twice (or twice at once) moves the order exactly once; returns whether this call did it.
 */
export async function completeOrder(trx: Transaction<Database>, id: number): Promise<boolean> {
  const r = await trx
    .updateTable('top_ups')
    .set({ status: TopupStatus.Success, complete_time: Math.floor(Date.now() / 1000) })
    .where('id', '=', id)
    .where('status', '=', TopupStatus.Pending)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function listOrders(
  db: Kysely<Database>,
  opts: { userId?: number; page: number; pageSize: number },
) {
  let q = db.selectFrom('top_ups');
  if (opts.userId !== undefined) q = q.where('top_ups.user_id', '=', opts.userId);
  const [items, count] = await Promise.all([
    q
      .leftJoin('users', 'users.id', 'top_ups.user_id')
      .selectAll('top_ups')
      .select('users.username')
      .orderBy('top_ups.id', 'desc')
      .limit(opts.pageSize)
      .offset((opts.page - 1) * opts.pageSize)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: items.map((o) => ({
      ...o,
      id: Number(o.id),
      user_id: Number(o.user_id),
      amount: Number(o.amount),
      money: Number(o.money),
      username: o.username ?? '',
    })),
    total: Number(count.n),
  };
}
