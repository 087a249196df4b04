import { z } from 'zod';
import type { AppContext } from '../../../context.ts';
import { ok } from '../../../infra/envelope.ts';
import { parseOr400 } from '../../../infra/validate.ts';
import { requireAdmin } from '../../auth/guard.ts';
import type { Feature } from '../../index.ts';
import { CLIENT_FORMATS } from './matrix.ts';
import { estimateCheck, runCheck } from './run.ts';
import { startCompatSchedule } from './schedule.ts';
import { SCRIPTS } from './scripts.ts';
import { latestRun, listRuns } from './store.ts';

const idParam = z.object({
  id: z.coerce.number({ error: 'channel id must be a number' }).int().positive('channel id must be a number'),
});
const historyQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).catch(20) });

/**
 * /api/channel/compat (admin): the compatibility check of a channel (what a run costs, a run, the latest
 * result and the history), and the scheduled runs of every enabled channel.
 */
const compatFeature: Feature = (app, ctx: AppContext) => {
  const admin = { preHandler: requireAdmin(ctx) };
  const userId = (req: { user?: unknown }) => (req.user as { id: number }).id;
  const layout = { scripts: SCRIPTS, formats: CLIENT_FORMATS };

  app.get('/channel/compat/:id/estimate', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok({ ...layout, ...(await estimateCheck(ctx, id, userId(req))) });
  });

  app.post('/channel/compat/:id/run', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok({ ...layout, run: await runCheck(ctx, app, id, userId(req), 'manual') });
  });

  app.get('/channel/compat/:id', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok({ ...layout, run: await latestRun(ctx.db, id) });
  });

  app.get('/channel/compat/:id/history', admin, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    const { limit } = historyQuery.parse(req.query ?? {});
    return ok({ ...layout, runs: await listRuns(ctx.db, id, limit) });
  });

  startCompatSchedule(ctx, app);
};

export default compatFeature;
