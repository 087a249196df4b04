import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';
import { type LogFilter, logFilterSchema, logPageSchema } from './filters.ts';
import { adminItem, selfItem } from './present.ts';
import { channelNames, deleteLogsBefore, listLogs, statLogs } from './store.ts';

const cleanupSchema = z.object({
  target_timestamp: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number({ error: 'target_timestamp is required' }).int().positive('target_timestamp is required'),
  ),
});

/** Usage logs: admins see every row, users only their own, without admin-only fields. */
export function logsFeature(app: FastifyInstance, ctx: AppContext): void {
  const admin = { preHandler: requireAdmin(ctx) };
  const user = { preHandler: requireUser(ctx) };

  const page = (query: unknown, self: { userId: number } | null) => {
    const q = parseOr400(logPageSchema, query);
    const { p, page_size, before_time, before_id, ...rest } = q;
    const filter: LogFilter = self
      ? { ...rest, username: undefined, channel: undefined, user_id: self.userId }
      : rest;
    const cursor =
      before_time !== undefined && before_id !== undefined ? { before_time, before_id } : undefined;
    return { filter, cursor, page: Math.max(1, p ?? 1), pageSize: page_size ?? 10 };
  };

  app.get('/log/', admin, async (req) => {
    const { filter, cursor, page: p, pageSize } = page(req.query, null);
    const res = await listLogs(ctx.logDb, filter, p, pageSize, cursor);
    const names = await channelNames(
      ctx.db,
      res.rows.map((r) => Number(r.channel_id)),
    );
    const items = res.rows.map((r) => adminItem(r, names.get(Number(r.channel_id)) ?? ''));
    return ok({ items, page: p, page_size: pageSize, total: res.total, total_capped: res.capped });
  });

  app.get('/log/self/', user, async (req) => {
    const { filter, cursor, page: p, pageSize } = page(req.query, { userId: req.user!.id });
    const res = await listLogs(ctx.logDb, filter, p, pageSize, cursor);
    return ok({
      items: res.rows.map(selfItem),
      page: p,
      page_size: pageSize,
      total: res.total,
      total_capped: res.capped,
    });
  });

  app.get('/log/stat', admin, async (req) => {
    const filter = parseOr400(logFilterSchema, req.query);
    return ok(await statLogs(ctx.logDb, filter));
  });

  app.get('/log/self/stat', user, async (req) => {
    const { username: _u, channel: _c, ...filter } = parseOr400(logFilterSchema, req.query);
    return ok(await statLogs(ctx.logDb, { ...filter, user_id: req.user!.id }));
  });

  app.delete('/log/', admin, async (req) => {
    const { target_timestamp } = parseOr400(cleanupSchema, req.query);
    if (target_timestamp > Math.floor(Date.now() / 1000) + 86_400)
      throw new ApiError('target_timestamp must be unix seconds and not in the future');
    const count = await deleteLogsBefore(ctx, target_timestamp);
    req.log.info({ by: req.user!.id, before: target_timestamp, count }, 'usage logs cleaned');
    return ok(count, `${count} log rows deleted`);
  });
}
