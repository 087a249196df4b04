import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';
import { startQuotaDataExport } from './export.ts';
import { unexportedRows } from './live.ts';
import { listAllData, listUserData } from './store.ts';

/** A user may read at most 31 days of their own hourly rows at once (a month view plus the hour ahead). */
const SELF_MAX_SPAN = 31 * 24 * 3600;

const seconds = z.coerce.number().int('must be an integer').min(0, 'must not be negative').default(0);
const rangeQuery = z.object({
  start_timestamp: seconds,
  end_timestamp: seconds,
  username: z.string().trim().max(64).optional(),
});

function range(q: { start_timestamp: number; end_timestamp: number }) {
  if (q.end_timestamp > 0 && q.start_timestamp > q.end_timestamp) throw new ApiError('start_timestamp must not be after end_timestamp');
  return { start: q.start_timestamp, end: q.end_timestamp };
}

/**
 * Dashboard data: hourly quota per user and model: the exported buckets plus the
 * log rows written since the last export, so the figures are current.
 */
export default function dataFeature(app: FastifyInstance, ctx: AppContext) {
  startQuotaDataExport(ctx);

  app.get('/data/', { preHandler: requireAdmin(ctx) }, async (req) => {
    const q = parseOr400(rangeQuery, req.query);
    const r = range(q);
    const who = q.username ? { username: q.username } : {};
    const [summed, live] = await Promise.all([
      q.username ? listUserData(ctx, who, r) : listAllData(ctx, r),
      unexportedRows(ctx, who, r),
    ]);
    return ok([...summed, ...live]);
  });

  app.get('/data/self/', { preHandler: requireUser(ctx) }, async (req) => {
    const q = parseOr400(rangeQuery.omit({ username: true }), req.query);
    const r = range(q);
    const end = r.end || Math.floor(Date.now() / 1000);
    if (end - r.start > SELF_MAX_SPAN) throw new ApiError('the time span must not exceed one month');
    const who = { userId: req.user!.id };
    const [summed, live] = await Promise.all([listUserData(ctx, who, r), unexportedRows(ctx, who, r)]);
    return ok([...summed, ...live]);
  });
}
