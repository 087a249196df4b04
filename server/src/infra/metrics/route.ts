import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { compileAllowList } from '../ip-allow.ts';

export const METRICS_PATH = '/metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may scrape: with METRICS_TOKEN a request must send `Authorization: Bearer <token>` (else 401), with
 * METRICS_ALLOW it must come from a listed address (else 403); with both, both are required.
 */
function scrapeAccess(config: Config): (req: FastifyRequest) => 200 | 401 | 403 {
  const token = config.metricsToken ? digest(config.metricsToken) : null;
  const allow = compileAllowList(config.metricsAllow.join('\n'));
  return (req) => {
    if (!allow.open && !allow.allows(req.ip)) return 403;
    if (!token) return 200;
    const auth = req.headers.authorization ?? '';
    const sent = /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '').trim() : '';
    // Compared as digests: equal lengths for timingSafeEqual, and no timing hint about the token.
    return sent && timingSafeEqual(digest(sent), token) ? 200 : 401;
  };
}

/** GET /metrics in Prometheus' text format; 404 when neither METRICS_TOKEN nor METRICS_ALLOW is set. */
export function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  const metrics = ctx.metrics;
  const access = metrics ? scrapeAccess(ctx.config) : null;
  app.get(METRICS_PATH, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    if (!metrics || !access) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
    const verdict = access(req);
    if (verdict === 401)
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('text/plain; charset=utf-8')
        .send('the metrics need Authorization: Bearer <METRICS_TOKEN>');
    if (verdict === 403)
      return reply.code(403).type('text/plain; charset=utf-8').send('this address may not read the metrics');
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
