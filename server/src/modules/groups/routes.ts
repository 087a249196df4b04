import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { requireAdmin, requireUser, tryUser } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { groupModels, groupNames, usableGroups } from './service.ts';

/** Group lists: all groups for admins; usable groups and models for the caller. */
export const groupsFeature: Feature = (app, ctx: AppContext) => {
  app.get('/group', { preHandler: requireAdmin(ctx) }, async () => ok(groupNames(ctx)));

  const user = requireUser(ctx);
  app.get('/user/self/groups', { preHandler: user }, async (req) => ok(usableGroups(ctx, req.user!.group)));
  // Public: a visitor sees the groups a new account could use (its own group is "default").
  app.get('/user/groups', { preHandler: tryUser(ctx) }, async (req) =>
    ok(usableGroups(ctx, req.user?.group ?? 'default')),
  );
  app.get('/user/models', { preHandler: user }, async (req) => ok(await groupModels(ctx, req.user!.group)));
};
