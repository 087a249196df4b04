import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import type { TaskRow } from '../../relay/tasks/midjourney/store.ts';
import { imageUrlOf } from '../../relay/tasks/midjourney/view.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';

export const PAGE_SIZE = 10;

const int0 = z.coerce.number().int('must be an integer').min(0, 'must not be negative').default(0);
const listQuery = z.object({
  p: int0,
  channel_id: int0,
  mj_id: z.string().trim().max(191).default(''),
  // Drawing tasks keep their times in milliseconds.
  start_timestamp: int0,
  end_timestamp: int0,
});
type ListQuery = z.infer<typeof listQuery>;

const COLUMNS = [
  'id',
  'code',
  'user_id',
  'action',
  'mj_id',
  'prompt',
  'prompt_en',
  'description',
  'state',
  'submit_time',
  'start_time',
  'finish_time',
  'image_url',
  'status',
  'progress',
  'fail_reason',
  'channel_id',
  'quota',
  'buttons',
  'properties',
  'video_url',
  'updated_at',
] as const;

async function list(ctx: AppContext, q: ListQuery, userId?: number) {
  let sel = ctx.db.db.selectFrom('midjourneys').select(COLUMNS);
  if (userId !== undefined) sel = sel.where('user_id', '=', userId);
  else if (q.channel_id) sel = sel.where('channel_id', '=', q.channel_id);
  if (q.mj_id) sel = sel.where('mj_id', '=', q.mj_id);
  if (q.start_timestamp) sel = sel.where('submit_time', '>=', q.start_timestamp);
  if (q.end_timestamp) sel = sel.where('submit_time', '<=', q.end_timestamp);
  const rows = await sel
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE)
    .offset(q.p * PAGE_SIZE)
    .execute();
  return rows.map(({ updated_at, ...r }) => {
    const row = {
      ...r,
      id: Number(r.id),
      user_id: Number(r.user_id),
      channel_id: Number(r.channel_id),
      submit_time: Number(r.submit_time),
      start_time: Number(r.start_time),
      finish_time: Number(r.finish_time),
      quota: Number(r.quota),
      prompt: r.prompt ?? '',
      prompt_en: r.prompt_en ?? '',
      description: r.description ?? '',
      // With MjForwardUrlEnabled the page shows images through the gateway's signed proxy, not the upstream's URL.
      image_url: imageUrlOf(ctx, { ...r, updated_at: Number(updated_at) } as TaskRow, 'console'),
      video_url: r.video_url ?? '',
      fail_reason: r.fail_reason ?? '',
    };
    if (userId === undefined) return row;
    // Which channel served a job is admin information.
    const { channel_id: _hidden, ...own } = row;
    return own;
  });
}

/** Drawing (Midjourney) job lists, 10 per page with p from 0. */
export default function midjourneyFeature(app: FastifyInstance, ctx: AppContext) {
  app.get('/mj/', { preHandler: requireAdmin(ctx) }, async (req) =>
    ok(await list(ctx, parseOr400(listQuery, req.query))),
  );
  app.get('/mj/self/', { preHandler: requireUser(ctx) }, async (req) =>
    ok(await list(ctx, parseOr400(listQuery, req.query), req.user!.id)),
  );
}
