import { isRoot, isRootOnlyOption } from '@modelgate/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { requireAdmin } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { parseBody } from '../users/parse.ts';
import { optionDef } from './registry.ts';
import { prerequisiteProblem } from './rules.ts';
import { normaliseOption } from './store.ts';

const PutBody = z.object({
  key: z.string({ error: 'key must be a string' }).min(1, 'key is required').max(191),
  value: z.union([z.string(), z.number(), z.boolean()], { error: 'value must be a string' }),
});

/**
 * `GET /api/option/` and `PUT /api/option/`: admin only; secrets are never sent back.
 * Root-only options (@modelgate/shared isRootOnlyOption) are listed with `root_only: true` and only root may write them.
 */
export const optionsFeature: Feature = (app, ctx: AppContext) => {
  const admin = requireAdmin(ctx);

  app.get('/option', { preHandler: admin }, async () => {
    const all = ctx.options.all();
    const data = Object.keys(all)
      .filter((key) => !optionDef(key)?.secret)
      .sort()
      .map((key) =>
        isRootOnlyOption(key) ? { key, value: all[key], root_only: true } : { key, value: all[key] },
      );
    return ok(data);
  });

  app.put('/option', { preHandler: admin }, async (req) => {
    const body = parseBody(PutBody, req.body);
    const def = optionDef(body.key);
    if (!def) throw new ApiError(`unknown option: ${body.key}`);
    if (isRootOnlyOption(body.key) && !isRoot(req.user?.role))
      throw new ApiError(`only the root user may change ${body.key}`, 403);
    if (def.secret && String(body.value).trim() === '')
      return ok(undefined, 'a blank secret is left unchanged');
    const value = normaliseOption(body.key, body.value, def);
    const problem = prerequisiteProblem(ctx.options, body.key, value);
    if (problem) throw new ApiError(problem);
    await ctx.options.set(body.key, value);
    req.log.info({ key: body.key, by: req.user?.id }, 'option changed');
    return ok();
  });
};
