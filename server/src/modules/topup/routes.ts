import { isAdmin } from '@modelgate/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireUser } from '../auth/guard.ts';
import { pageQuery, paging, parseBody } from '../redemptions/schemas.ts';
import { createPayment, handleNotify, quote } from './service.ts';
import { listOrders } from './store.ts';

const amount = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
  z
    .number({ error: '请输入充值数量' })
    .int('充值数量必须是整数')
    .positive('充值数量必须大于 0')
    .max(1e12, '充值数量过大'),
);
const amountSchema = z.object({ amount, top_up_code: z.string().max(64).optional() });
const paySchema = amountSchema.extend({
  payment_method: z.enum(['zfb', 'wx'], { error: '不支持的支付方式（只支持 zfb 或 wx）' }),
});

/** Every parameter of a gateway notification as text (query string for GET, form body for POST). */
function notifyParams(req: FastifyRequest): Record<string, string> {
  const src = (
    req.method === 'POST' && req.body && typeof req.body === 'object' ? req.body : req.query
  ) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(src ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Online top-up through an Epay-compatible gateway (the wallet page), and the order list. */
export function topupFeature(app: FastifyInstance, ctx: AppContext): void {
  const user = { preHandler: requireUser(ctx) };

  app.post('/user/amount', user, async (req) => {
    const body = parseBody(amountSchema, req.body);
    return ok(quote(ctx, body.amount, req.user!.group), 'success');
  });

  app.post('/user/pay', user, async (req) => {
    const body = parseBody(paySchema, req.body);
    const form = await createPayment(ctx, req.user!, body.amount, body.payment_method);
    // `url` also at the top level, where Epay-era clients of this API read it.
    return { ...ok({ ...form.params, url: form.url }, 'success'), url: form.url };
  });

  const notify = async (req: FastifyRequest) => {
    try {
      return await handleNotify(ctx, notifyParams(req));
    } catch (err) {
      req.log.error({ err }, 'epay notify failed');
      return 'fail';
    }
  };
  app.get('/user/epay/notify', async (req, reply) => reply.type('text/plain').send(await notify(req)));
  app.post('/user/epay/notify', async (req, reply) => reply.type('text/plain').send(await notify(req)));

  // Where the gateway sends the buyer back; the credit itself only ever comes from the signed notification.
  app.get('/user/epay/return', async (req, reply) => {
    const tradeNo = notifyParams(req).out_trade_no ?? '';
    return reply.redirect(`/topup?pay=return${tradeNo ? `&trade_no=${encodeURIComponent(tradeNo)}` : ''}`);
  });

  /** Admins see every order (or only theirs with mine=true); users see their own. */
  app.get('/user/topup/orders', user, async (req) => {
    const q = parseOr400(pageQuery.extend({ mine: z.string().optional() }), req.query);
    const { page, pageSize } = paging(q);
    const all = isAdmin(req.user!.role) && q.mine !== 'true';
    const { items, total } = await listOrders(ctx.db.db, {
      userId: all ? undefined : req.user!.id,
      page,
      pageSize,
    });
    return ok({ items, page, page_size: pageSize, total });
  });
}
