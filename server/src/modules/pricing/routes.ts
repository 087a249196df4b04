import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { requireAdmin, tryUser } from '../auth/guard.ts';
import { BUILT_IN_PRICES, resetModelPrices } from './reset.ts';
import { createPricingCache, groupRatios, usableGroups } from './service.ts';

/**
 * Public price list, the built-in price tables and the admin
 * "reset model ratios" action.
 */
export default function pricingFeature(app: FastifyInstance, ctx: AppContext) {
  const cache = createPricingCache(ctx);

  app.get('/pricing', { preHandler: tryUser(ctx) }, async (req) => {
    const usable = usableGroups(ctx, req.user?.group);
    return {
      success: true,
      message: '',
      data: await cache.get(),
      group_ratio: groupRatios(ctx, Object.keys(usable)),
      usable_group: usable,
    };
  });

  // The price editor shows every model the relay prices: these tables wherever the options do not name a model.
  app.get('/pricing/defaults', { preHandler: requireAdmin(ctx) }, async () => ok(BUILT_IN_PRICES));

  app.post('/option/rest_model_ratio', { preHandler: requireAdmin(ctx) }, async () => {
    await resetModelPrices(ctx);
    return { success: true, message: 'model ratios reset to the built-in defaults' };
  });
}
