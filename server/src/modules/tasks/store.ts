import type { AppContext } from '../../context.ts';
import type { ListQuery } from './schema.ts';

export const PAGE_SIZE = 10;

const COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'task_id',
  'platform',
  'user_id',
  'channel_id',
  'quota',
  'action',
  'status',
  'fail_reason',
  'submit_time',
  'start_time',
  'finish_time',
  'progress',
  'properties',
  'data',
] as const;

/**
 * One page of the task log, newest first. With `userId` only that user's tasks, whatever the query says, and
 * without the channel (which channel served a task is admin information).
 */
export async function listTasks(ctx: AppContext, q: ListQuery, userId?: number) {
  let sel = ctx.db.db.selectFrom('tasks').select(COLUMNS);
  if (userId !== undefined) sel = sel.where('user_id', '=', userId);
  else if (q.channel_id) sel = sel.where('channel_id', '=', q.channel_id);
  if (q.task_id) sel = sel.where('task_id', '=', q.task_id);
  if (q.platform) sel = sel.where('platform', '=', q.platform);
  if (q.action) sel = sel.where('action', '=', q.action.toUpperCase());
  if (q.status) sel = sel.where('status', '=', q.status.toUpperCase());
  if (q.start_timestamp) sel = sel.where('submit_time', '>=', q.start_timestamp);
  if (q.end_timestamp) sel = sel.where('submit_time', '<=', q.end_timestamp);
  const rows = await sel
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE)
    .offset(q.p * PAGE_SIZE)
    .execute();
  return rows.map((r) => {
    const row = {
      ...r,
      id: Number(r.id),
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
      user_id: Number(r.user_id),
      channel_id: Number(r.channel_id),
      quota: Number(r.quota),
      submit_time: Number(r.submit_time),
      start_time: Number(r.start_time),
      finish_time: Number(r.finish_time),
      fail_reason: r.fail_reason ?? '',
      properties: r.properties ?? '',
      data: r.data ?? '',
    };
    if (userId === undefined) return row;
    const { channel_id: _hidden, ...own } = row;
    return own;
  });
}
