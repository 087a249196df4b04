import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';

export const PAGE_SIZE = 10;

const int0 = z.coerce.number().int('must be an integer').min(0, 'must not be negative').default(0);
const text = (max: number) => z.string().trim().max(max).default('');
const listQuery = z.object({
  p: int0,
  channel_id: int0,
  task_id: text(191),
  platform: text(30),
  action: text(40),
  status: text(20),
  // Generic tasks keep their times in seconds.
  start_timestamp: int0,
  end_timestamp: int0,
});
type ListQuery = z.infer<typeof listQuery>;

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

async function list(ctx: AppContext, q: ListQuery, userId?: number) {
  let sel = ctx.db.db.selectFrom('tasks').select(COLUMNS);
  if (userId !== undefined) sel = sel.where('user_id', '=', userId);
  else if (q.channel_id) sel = sel.where('channel_id', '=', q.channel_id);
  if (q.task_id) sel = sel.where('task_id', '=', q.task_id);
  if (q.platform) sel = sel.where('platform', '=', q.platform);
  if (q.action) sel = sel.where('action', '=', q.action);
  if (q.status) sel = sel.where('status', '=', q.status);
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

/** Asynchronous task (Suno) lists, 10 per page with p from 0 (spec 002 §7). */
export default function tasksFeature(app: FastifyInstance, ctx: AppContext) {
  app.get('/task/', { preHandler: requireAdmin(ctx) }, async (req) =>
    ok(await list(ctx, parseOr400(listQuery, req.query))),
  );
  app.get('/task/self', { preHandler: requireUser(ctx) }, async (req) =>
    ok(await list(ctx, parseOr400(listQuery, req.query), req.user!.id)),
  );
}
