import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { listAudit } from './store.ts';
import { verifyAudit } from './verify.ts';

const optionalText = (max: number) =>
  z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(max).optional());
const optionalInt = (name: string) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce
      .number({ error: `${name} must be a number` })
      .int(`${name} must be a whole number`)
      .min(0)
      .optional(),
  );

const listQuery = z.object({
  p: optionalInt('p'),
  page_size: optionalInt('page_size'),
  user_id: optionalInt('user_id'),
  username: optionalText(64),
  entity: optionalText(32),
  target: optionalText(191),
  action: optionalText(191),
  start_timestamp: optionalInt('start_timestamp'),
  end_timestamp: optionalInt('end_timestamp'),
});

/**
 * The audit log (read only: no route edits or deletes an entry, whatever the role). Admins and root list and
 * filter it and check its chain; entries are written by the hook in hook.ts and by `config apply`.
 */
const auditFeature: Feature = (app, ctx: AppContext) => {
  const admin = { preHandler: requireAdmin(ctx) };

  app.get('/audit/', admin, async (req) => {
    const q = parseOr400(listQuery, req.query);
    const page = Math.max(1, q.p ?? 1);
    const pageSize = Math.min(100, Math.max(1, q.page_size ?? 20));
    const { items, total } = await listAudit(
      ctx.db,
      {
        userId: q.user_id,
        username: q.username,
        entity: q.entity,
        target: q.target,
        action: q.action,
        from: q.start_timestamp,
        to: q.end_timestamp,
      },
      { offset: (page - 1) * pageSize, limit: pageSize },
    );
    return ok({
      items: items.map((r) => ({ ...r, seq: Number(r.seq), changes: JSON.parse(r.changes) })),
      total,
      page,
      page_size: pageSize,
    });
  });

  app.get('/audit/verify', admin, async () => ok(await verifyAudit(ctx.db)));
};

export default auditFeature;
