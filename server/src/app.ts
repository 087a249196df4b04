import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import type { AppContext } from './context.ts';
import { friendlyClientError } from './infra/client-error.ts';
import { ApiError, fail } from './infra/envelope.ts';
import { createProbes, PROBE_PATHS } from './infra/health/probes.ts';
import { createReadiness } from './infra/health/readiness.ts';
import { METRICS_PATH, registerMetricsRoute } from './infra/metrics/route.ts';
import { globalApiRateLimit, globalWebRateLimit } from './infra/rate-limit.ts';
import { newRequestId, REQUEST_ID_HEADER } from './infra/request-id.ts';
import { setSecurityHeaders } from './infra/security-headers.ts';
import { registerAuditHooks } from './modules/audit/hook.ts';
import { FEATURES } from './modules/index.ts';
import { createLane } from './relay/http/lane/lane.ts';
import { RELAY_PREFIXES, registerRelay } from './relay/http/routes.ts';
import { pendingCaches, relayState } from './relay/relay-state.ts';

/** Operations endpoints: never rate limited, never the console's headers or page. */
const OPS_PATHS = new Set([METRICS_PATH, ...PROBE_PATHS]);

/** Builds the HTTP server: the console API under /api, the relay, and the built web app with SPA fallback. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  // The relay's main JSON endpoints bypass Fastify's request lifecycle (relay/http/lane); the rest goes to Fastify.
  const lane = createLane(ctx);
  // Health probes too: they answer while Fastify is closing (/readyz then says so).
  const readiness = createReadiness(ctx, () => pendingCaches(relayState(ctx)));
  const probes = createProbes(readiness);
  const app = Fastify({
    serverFactory: (handler, opts) => {
      const server = createServer((req, res) => {
        if (!lane.take(req, res) && !probes.take(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = Number(opts.keepAliveTimeout ?? 72_000);
      server.requestTimeout = Number(opts.requestTimeout ?? 0);
      return server;
    },
    loggerInstance: ctx.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newRequestId(),
    bodyLimit: ctx.config.maxRequestBodyMb * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // Client IPs (rate limits, allow lists) come from X-Forwarded-For only when a trusted proxy sent it.
    trustProxy: ctx.config.trustedProxies.length ? ctx.config.trustedProxies : false,
    return503OnClosing: true,
  });

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header(REQUEST_ID_HEADER, req.id);
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode >= 500)
      req.log.error({ url: req.url.split('?')[0], status: reply.statusCode }, 'request failed');
    done();
  });

  const isConsolePage = (path: string) =>
    path !== '/api' &&
    !OPS_PATHS.has(path) &&
    !path.startsWith('/api/') &&
    !RELAY_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
  app.addHook('onRequest', globalWebRateLimit(ctx, isConsolePage));
  // The console's pages and API get the browser-hardening headers; relay replies (API clients) do not.
  app.addHook('onRequest', (req, reply, done) => {
    if (isConsolePage(req.url.split('?')[0]) || req.url.startsWith('/api')) setSecurityHeaders(req, reply);
    done();
  });
  await app.register(cookie, { secret: ctx.config.sessionSecret });
  await app.register(formbody);

  // Console API: every reply is the {success, message, data} envelope, errors included.
  await app.register(
    async (api) => {
      api.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
        if (err instanceof ApiError)
          return reply
            .status(err.status)
            .send(err.code ? { ...fail(err.message), code: err.code } : fail(err.message));
        const status = (err as FastifyError).statusCode ?? 500;
        if (status >= 500) {
          req.log.error({ err }, 'unhandled error');
          return reply.status(500).send(fail(`internal server error (request id ${req.id})`));
        }
        return reply.status(status).send(fail(friendlyClientError(err as FastifyError)));
      });
      api.setNotFoundHandler((req, reply) =>
        reply.status(404).send(fail(`Invalid URL (${req.method} ${req.url})`)),
      );
      api.addHook('onRequest', globalApiRateLimit(ctx));
      registerAuditHooks(api, ctx);
      for (const feature of FEATURES) await feature(api, ctx);
    },
    { prefix: '/api' },
  );

  await registerRelay(app, ctx, lane);
  registerMetricsRoute(app, ctx);
  app.addHook('preClose', (done) => {
    lane.close();
    readiness.stop();
    done();
  });

  const dist = ctx.config.webDist;
  const hasWeb = existsSync(join(dist, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: dist,
      wildcard: false,
      setHeaders(reply, path) {
        reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    if (RELAY_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) {
      return reply.status(404).send({
        error: {
          message: `Invalid URL (${req.method} ${path})`,
          type: 'invalid_request_error',
          param: null,
          code: 'not_found',
        },
      });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply.status(404).send(fail('not found'));
    if (!hasWeb)
      return reply.status(404).type('text/plain').send('The web console is not built; run `npm run build`.');
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
  return app;
}
