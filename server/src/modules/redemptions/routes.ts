import { renderQuota } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';
import { createAttemptLimiter } from './attempts.ts';
import {
  checkName,
  createSchema,
  idParam,
  pageQuery,
  paging,
  parseBody,
  redeemSchema,
  statusSchema,
  updateSchema,
} from './schemas.ts';
import { redeem } from './service.ts';
import {
  getCode,
  insertCodes,
  listCodes,
  type Redemption,
  setCodeStatus,
  softDeleteCode,
  updateUnusedCode,
} from './store.ts';

const present = (r: Redemption) => ({
  id: Number(r.id),
  user_id: Number(r.user_id),
  key: r.key,
  status: r.status,
  name: r.name,
  quota: Number(r.quota),
  created_time: Number(r.created_time),
  redeemed_time: Number(r.redeemed_time),
  used_user_id: Number(r.used_user_id),
});

const validName = (n: string) => {
  try {
    checkName(n);
  } catch (err) {
    throw new ApiError((err as Error).message);
  }
  return n;
};

/** Redemption codes: admins manage them, any user redeems one with POST /api/user/topup. */
export function redemptionsFeature(app: FastifyInstance, ctx: AppContext): void {
  const admin = { preHandler: requireAdmin(ctx) };
  const limiter = createAttemptLimiter({ max: 10, windowSec: 600, redis: ctx.redis });

  const list = async (query: unknown) => {
    const q = parseOr400(pageQuery, query);
    const { page, pageSize } = paging(q);
    const { items, total } = await listCodes(ctx.db.db, { page, pageSize, keyword: q.keyword });
    return ok({ items: items.map(present), page, page_size: pageSize, total });
  };
  app.get('/redemption/', admin, (req) => list(req.query));
  app.get('/redemption/search', admin, (req) => list(req.query));

  app.get('/redemption/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const code = await getCode(ctx.db.db, id);
    if (!code) throw new ApiError('兑换码不存在', 404);
    return ok(present(code));
  });

  app.post('/redemption/', admin, async (req) => {
    const body = parseBody(createSchema, req.body);
    const name = validName(
      body.name ||
        renderQuota(body.quota, {
          quotaPerUnit: ctx.options.float('QuotaPerUnit'),
          displayInCurrency: ctx.options.bool('DisplayInCurrencyEnabled'),
        }),
    );
    const keys = await insertCodes(ctx.db.db, {
      creatorId: req.user!.id,
      name,
      quota: body.quota,
      count: body.count,
    });
    return ok(keys, '兑换码创建成功！');
  });

  app.put('/redemption/', admin, async (req) => {
    const statusOnly = ['true', '1'].includes(
      String((req.query as Record<string, unknown>)?.status_only ?? ''),
    );
    let id: number;
    if (statusOnly) {
      const body = parseBody(statusSchema, req.body);
      id = body.id;
      const before = await getCode(ctx.db.db, id);
      if (!before) throw new ApiError('兑换码不存在', 404);
      if (!(await setCodeStatus(ctx.db.db, id, body.status)))
        throw new ApiError('已使用的兑换码不能启用或禁用');
    } else {
      const body = parseBody(updateSchema, req.body);
      id = body.id;
      const before = await getCode(ctx.db.db, id);
      if (!before) throw new ApiError('兑换码不存在', 404);
      if (!(await updateUnusedCode(ctx.db.db, id, { name: validName(body.name), quota: body.quota }))) {
        throw new ApiError('只能编辑未使用的兑换码');
      }
    }
    const after = await getCode(ctx.db.db, id);
    return ok(after && present(after));
  });

  app.delete('/redemption/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    if (!(await softDeleteCode(ctx.db.db, id))) throw new ApiError('兑换码不存在', 404);
    return ok();
  });

  app.post('/user/topup', { preHandler: requireUser(ctx) }, async (req) => {
    const { key } = parseBody(redeemSchema, req.body);
    const quota = await redeem(ctx, limiter, req.user!.id, key, req.ip);
    return ok(quota, '兑换成功！');
  });
}
