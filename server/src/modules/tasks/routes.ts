import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin, requireUser } from '../auth/guard.ts';
import { listQuery } from './schema.ts';
import { listTasks } from './store.ts';

/** Asynchronous task (Suno) lists, 10 per page with p from 0: admins see all, users their own. */
export default function tasksFeature(app: FastifyInstance, ctx: AppContext) {
  app.get('/task/', { preHandler: requireAdmin(ctx) }, async (req) =>
    ok(await listTasks(ctx, parseOr400(listQuery, req.query))),
  );
  app.get('/task/self', { preHandler: requireUser(ctx) }, async (req) =>
    ok(await listTasks(ctx, parseOr400(listQuery, req.query), req.user!.id)),
  );
}
