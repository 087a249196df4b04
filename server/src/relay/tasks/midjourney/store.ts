import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { AppContext } from '../../../context.ts';
import type { Database, MidjourneysTable } from '../../../db/schema.ts';
import { ACCEPTED_CODES, TERMINAL_STATUSES } from './protocol.ts';

export type TaskRow = Selectable<MidjourneysTable>;
export type TaskChanges = Updateable<MidjourneysTable>;

const num = (v: unknown) => Number(v ?? 0);

/** Bigint columns come back as strings on PostgreSQL and MySQL. */
function normal(r: TaskRow): TaskRow {
  return {
    ...r,
    id: num(r.id),
    code: num(r.code),
    user_id: num(r.user_id),
    channel_id: num(r.channel_id),
    token_id: num(r.token_id),
    quota: num(r.quota),
    submit_time: num(r.submit_time),
    start_time: num(r.start_time),
    finish_time: num(r.finish_time),
    updated_at: num(r.updated_at),
  };
}

export async function insertTask(ctx: AppContext, row: Insertable<MidjourneysTable>): Promise<void> {
  await ctx.db.db.insertInto('midjourneys').values(row).execute();
}

/** The caller's task with this upstream id (the newest when a `21 exists` answer repeated it). */
export async function ownTask(ctx: AppContext, userId: number, mjId: string): Promise<TaskRow | undefined> {
  if (!mjId) return undefined;
  const r = await ctx.db.db
    .selectFrom('midjourneys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('mj_id', '=', mjId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r && normal(r);
}

/** The caller's tasks among these upstream ids, one per id, in the order asked. */
export async function ownTasks(ctx: AppContext, userId: number, mjIds: string[]): Promise<TaskRow[]> {
  const ids = [...new Set(mjIds.filter(Boolean))];
  if (!ids.length) return [];
  const rows = await ctx.db.db
    .selectFrom('midjourneys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('mj_id', 'in', ids)
    .orderBy('id', 'desc')
    .execute();
  const byId = new Map<string, TaskRow>();
  for (const r of rows) if (!byId.has(r.mj_id)) byId.set(r.mj_id, normal(r));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Every task carrying this upstream id, whoever owns it (notify callbacks, the image proxy). */
export async function tasksByMjId(ctx: AppContext, mjId: string): Promise<TaskRow[]> {
  if (!mjId) return [];
  const rows = await ctx.db.db
    .selectFrom('midjourneys')
    .selectAll()
    .where('mj_id', '=', mjId)
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  return rows.map(normal);
}

export async function tasksByIds(ctx: AppContext, ids: number[]): Promise<TaskRow[]> {
  if (!ids.length) return [];
  const rows = await ctx.db.db.selectFrom('midjourneys').selectAll().where('id', 'in', ids).execute();
  return rows.map(normal);
}

/** Tasks the upstream took that have not reached a final state, oldest first. */
export async function unfinishedTasks(ctx: AppContext, limit: number): Promise<TaskRow[]> {
  const rows = await ctx.db.db
    .selectFrom('midjourneys')
    .selectAll()
    .where('status', 'not in', [...TERMINAL_STATUSES])
    .where('code', 'in', [...ACCEPTED_CODES])
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(normal);
}

/**
 * Saves changes to a task that is not final yet; false when it already is (another caller finished it first).
 * The condition on the status is what makes finishing, and so refunding, happen once.
 */
export async function updateUnfinished(
  db: Kysely<Database>,
  id: number,
  changes: TaskChanges,
): Promise<boolean> {
  const res = await db
    .updateTable('midjourneys')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'not in', [...TERMINAL_STATUSES])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
