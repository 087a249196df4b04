import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin } from '../auth/guard.ts';
import { logFilterSchema } from '../logs/filters.ts';
import { channelNames } from '../logs/store.ts';
import { readCostSince } from './cost-since.ts';
import { dayFormatter, foldMargin } from './fold.ts';
import { marginRows } from './rows.ts';

const marginQuery = logFilterSchema.extend({
  tz: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(64).optional()),
});

/** The server's own time zone (the TZ variable), the default for counting days. */
const serverZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * Revenue, upstream cost and margin of the usage log's consumption, in quota, by day, channel and model
 * (`GET /api/log/margin`, the log filters plus `tz`, the IANA time zone days are counted in). Admins only: users
 * never see what a request cost upstream.
 */
export default function marginFeature(app: FastifyInstance, ctx: AppContext): void {
  app.get('/log/margin', { preHandler: requireAdmin(ctx) }, async (req) => {
    const { tz: asked, type: _type, ...filter } = parseOr400(marginQuery, req.query);
    const tz = asked || serverZone();
    try {
      dayFormatter(tz);
    } catch {
      throw new ApiError(`tz: unknown time zone "${tz}" (use an IANA name such as Asia/Shanghai or UTC)`);
    }
    if (filter.start_timestamp && filter.end_timestamp && filter.start_timestamp > filter.end_timestamp)
      throw new ApiError('start_timestamp must not be after end_timestamp');
    const [rows, costSince] = await Promise.all([marginRows(ctx.logDb, filter), readCostSince(ctx.logDb.db)]);
    const names = await channelNames(
      ctx.db,
      rows.map((r) => r.channel_id),
    );
    return ok(foldMargin(rows, { tz, costSince, channelNames: names }));
  });
}
