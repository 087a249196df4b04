import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireRoot } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { applyConfig, planConfig } from './apply.ts';
import { exportConfig } from './export.ts';
import { formatPlan } from './format.ts';
import { secretResolver } from './secrets.ts';
import { ConfigRefused } from './source.ts';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
const exportQuery = z.object({ keys: z.enum(['none', 'plain']).optional() });
const bodySchema = z.object({ config: z.string({ error: 'config must be the YAML text' }).max(8_000_000) });

/** The file sent: a YAML body (text/yaml, text/plain) or JSON `{config: "<yaml>"}`. */
const fileOf = (body: unknown) => (typeof body === 'string' ? body : parseOr400(bodySchema, body).config);

/**
 * Configuration as code over the console API, root only, for CI jobs: export, plan and apply the same YAML
 * file as `npm run config`. Key references resolve on the server ({env: NAME} from its environment,
 * {secret: NAME} from CONFIG_SECRETS_FILE). A refused file is a 400 listing each line and reason.
 */
const configFeature: Feature = (app, ctx: AppContext) => {
  const root = { preHandler: requireRoot(ctx) };
  app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const resolve = () => secretResolver(process.env, ctx.config.configSecretsFile || undefined);
  const refusedToApi = (err: unknown) => {
    if (err instanceof ConfigRefused)
      throw new ApiError(`configuration refused, nothing was changed:\n${err.message}`);
    throw err;
  };

  app.get('/config/export', root, async (req, reply) => {
    const { keys } = parseOr400(exportQuery, req.query);
    const out = await exportConfig(ctx.db, keys ?? 'none');
    return reply.type('application/yaml; charset=utf-8').send(out.yaml);
  });

  app.post('/config/plan', root, async (req) => {
    req.audit = undefined; // a plan changes nothing
    const plan = await planConfig(ctx, fileOf(req.body), resolve()).catch(refusedToApi);
    return ok({ changes: plan.changes, text: formatPlan(plan.changes) });
  });

  app.post('/config/apply', root, async (req) => {
    req.audit = undefined; // applyConfig records its own entry, with every item
    const user = req.user!;
    const plan = await applyConfig(
      ctx,
      fileOf(req.body),
      resolve(),
      { userId: user.id, username: user.username, role: user.role, ip: req.ip },
      'POST /api/config/apply',
    ).catch(refusedToApi);
    return ok({ changes: plan.changes, text: formatPlan(plan.changes) });
  });
};

export default configFeature;
