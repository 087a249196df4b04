import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { requireUser } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { findById } from './store.ts';
import { userView } from './view.ts';

/** The caller's own account (spec 000 §7 "Personal"). */
export const selfFeature: Feature = (app, ctx: AppContext) => {
  const user = requireUser(ctx);

  app.get('/user/self', { preHandler: user }, async (req) => {
    const row = await findById(ctx.db.db, req.user!.id);
    if (!row) throw new ApiError('user not found', 404);
    return ok(userView(row));
  });
};
