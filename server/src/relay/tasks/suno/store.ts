import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { AppContext } from '../../../context.ts';
import type { Database, TasksTable } from '../../../db/schema.ts';
import { TERMINAL_STATUSES } from './protocol.ts';

/** The `tasks` table's platform value of Suno tasks. */
export const PLATFORM = 'suno';

export type TaskRow = Selectable<TasksTable>;
export type TaskChanges = Updateable<TasksTable>;

const num = (v: unknown) => Number(v ?? 0);

/** Bigint columns come back as strings on MySQL. */
function normal(r: TaskRow): TaskRow {
  return {
    ...r,
    id: num(r.id),
    created_at: num(r.created_at),
    updated_at: num(r.updated_at),
    user_id: num(r.user_id),
    channel_id: num(r.channel_id),
    token_id: num(r.token_id),
    quota: num(r.quota),
    submit_time: num(r.submit_time),
    start_time: num(r.start_time),
    finish_time: num(r.finish_time),
    fail_reason: r.fail_reason ?? '',
    properties: r.properties ?? '',
    data: r.data ?? '',
  };
}

const suno = (ctx: AppContext) => ctx.db.db.selectFrom('tasks').selectAll().where('platform', '=', PLATFORM);

export async function insertTask(ctx: AppContext, row: Insertable<TasksTable>): Promise<void> {
  await ctx.db.db.insertInto('tasks').values(row).execute();
}

/** The caller's task with this upstream id. */
export async function ownTask(ctx: AppContext, userId: number, taskId: string): Promise<TaskRow | undefined> {
  if (!taskId) return undefined;
  const r = await suno(ctx)
    .where('user_id', '=', userId)
    .where('task_id', '=', taskId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r && normal(r);
}

/** The caller's tasks among these upstream ids, one per id, in the order asked. */
export async function ownTasks(ctx: AppContext, userId: number, taskIds: string[]): Promise<TaskRow[]> {
  const ids = [...new Set(taskIds.filter(Boolean))];
  if (!ids.length) return [];
  const rows = await suno(ctx)
    .where('user_id', '=', userId)
    .where('task_id', 'in', ids)
    .orderBy('id', 'desc')
    .execute();
  const byId = new Map<string, TaskRow>();
  for (const r of rows) if (!byId.has(r.task_id)) byId.set(r.task_id, normal(r));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function tasksByIds(ctx: AppContext, ids: number[]): Promise<TaskRow[]> {
  if (!ids.length) return [];
  const rows = await suno(ctx).where('id', 'in', ids).execute();
  return rows.map(normal);
}

/** Suno tasks that have not reached a final state, oldest first. */
export async function unfinishedTasks(ctx: AppContext, limit: number): Promise<TaskRow[]> {
  const rows = await suno(ctx)
    .where('status', 'not in', [...TERMINAL_STATUSES])
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
    .updateTable('tasks')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'not in', [...TERMINAL_STATUSES])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
