import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireUser } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { stripKeyPrefix } from './key.ts';
import { createTokenSchema, statusOnlySchema, updateTokenSchema } from './schema.ts';
import { createTokens, deleteToken, findTokenOr404, setTokenStatus, updateTokenFields } from './service.ts';
import { listTokens, searchTokens, toView } from './store.ts';

const pageQuery = z.object({
  p: z.coerce.number().int().min(0).catch(0),
  size: z.coerce.number().int().min(1).max(100).catch(10),
});
const searchQuery = z.object({
  keyword: z.string().trim().max(100).default(''),
  token: z.string().trim().max(100).default(''),
});
const idParam = z.object({
  id: z.coerce.number({ error: 'token id must be a number' }).int().positive('token id must be a number'),
});

/** /api/token: every route works on the caller's own tokens only; anyone else's id is "not found". */
const tokensFeature: Feature = (app, ctx: AppContext) => {
  const auth = { preHandler: requireUser(ctx) };
  const uid = (req: { user?: { id: number } }) => req.user!.id;

  app.get('/token', auth, async (req) => {
    const q = pageQuery.parse(req.query);
    const { items, total } = await listTokens(ctx.db, uid(req), q.p * q.size, q.size);
    return { ...ok(items), total };
  });

  app.get('/token/search', auth, async (req) => {
    const q = parseOr400(searchQuery, req.query);
    return ok(await searchTokens(ctx.db, uid(req), q.keyword, stripKeyPrefix(q.token), 100));
  });

  app.get('/token/:id', auth, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    return ok(toView(await findTokenOr404(ctx, uid(req), id)));
  });

  app.post('/token', auth, async (req) => {
    const input = parseOr400(createTokenSchema, req.body);
    return ok(await createTokens(ctx, uid(req), input));
  });

  app.put('/token', auth, async (req) => {
    const statusOnly = (req.query as Record<string, string>)?.status_only;
    if (statusOnly !== undefined && statusOnly !== '' && statusOnly !== 'false' && statusOnly !== '0') {
      const { id, status } = parseOr400(statusOnlySchema, req.body);
      return ok(await setTokenStatus(ctx, uid(req), id, status));
    }
    return ok(await updateTokenFields(ctx, uid(req), parseOr400(updateTokenSchema, req.body)));
  });

  app.delete('/token/:id', auth, async (req) => {
    const { id } = parseOr400(idParam, req.params);
    await deleteToken(ctx, uid(req), id);
    return ok();
  });
};
export default tokensFeature;
