import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { friendlyClientError } from '../../../infra/client-error.ts';
import { ApiError } from '../../../infra/envelope.ts';
import { setRelayCors } from '../../http/exchange.ts';
import { parseJsonBody } from '../../http/json-body.ts';
import { RelayError } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { startTaskLoop } from '../loop.ts';
import type { SubmitKind } from './plan.ts';
import { failureBody, MjCode, MjError, notFound, type SubmitResult } from './protocol.ts';
import { fetchTask, image, imageSeed, listByCondition, notify } from './reads.ts';
import { midjourneyTasks } from './refresh.ts';
import { MODES, submit } from './submit.ts';

const SUBMITS: Array<[path: string, kind: SubmitKind]> = [
  ['/submit/imagine', 'imagine'],
  ['/submit/change', 'change'],
  ['/submit/simple-change', 'simple-change'],
  ['/submit/blend', 'blend'],
  ['/submit/describe', 'describe'],
  ['/submit/modal', 'modal'],
  ['/submit/shorten', 'shorten'],
  ['/submit/action', 'action'],
  ['/submit/upload-discord-images', 'upload-discord-images'],
  ['/submit/video', 'video'],
  ['/submit/edits', 'edits'],
  ['/insight-face/swap', 'swap_face'],
];

/** Any error of a Midjourney route as the proxy's answer: `{code, description, result, properties}`. */
export function mjFailure(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { status: number; body: SubmitResult } {
  if (err instanceof MjError) return { status: err.status, body: failureBody(err.code, err.message) };
  const suffix = ` (request id: ${requestId})`;
  const status =
    err instanceof RelayError || err instanceof ApiError
      ? err.status
      : ((err as FastifyError).statusCode ?? 500);
  if (status >= 500 && !(err instanceof RelayError)) {
    log.error({ err }, 'midjourney relay error');
    return { status: 500, body: failureBody(MjCode.Failure, `internal error${suffix}`) };
  }
  const message =
    err instanceof RelayError || err instanceof ApiError
      ? err.message
      : friendlyClientError(err as FastifyError);
  const code = status === 404 ? MjCode.NotFound : status >= 500 ? MjCode.Failure : MjCode.ValidationError;
  return { status, body: failureBody(code, `${message}${suffix}`) };
}

/** The mode of a `/:mode/mj/...` path; anything but the three speeds is an unknown path. */
function modeOf(req: FastifyRequest): string | undefined {
  const mode = (req.params as { mode?: string }).mode;
  if (mode !== undefined && !MODES.has(mode))
    throw notFound(`Invalid URL (${req.method} ${req.url.split('?')[0]})`);
  return mode;
}

/**
 * The Midjourney relay in the midjourney-proxy protocol, under `/mj` and the speed prefixes `/mj-fast/mj`,
 * `/mj-turbo/mj`, `/mj-relax/mj`; and the task loop that keeps its tasks up to date (master only).
 */
export async function registerMidjourney(app: FastifyInstance, state: RelayState): Promise<void> {
  await app.register(async (r) => {
    r.setErrorHandler((err, req, reply) => {
      const { status, body } = mjFailure(err, req.id, req.log);
      return reply.status(status).send(body);
    });
    r.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (err) {
        done(err as Error);
      }
    });
    r.addHook('onRequest', (req, reply, done) => {
      setRelayCors(reply, req.headers.origin);
      done();
    });

    for (const prefix of ['/mj', '/:mode/mj']) {
      for (const [path, kind] of SUBMITS)
        r.post(`${prefix}${path}`, async (req, reply) => {
          await submit(state, req, reply, kind, modeOf(req));
          return reply;
        });
      r.get(`${prefix}/task/:id/fetch`, async (req) => {
        modeOf(req);
        return fetchTask(state, req);
      });
      r.post(`${prefix}/task/list-by-condition`, async (req) => {
        modeOf(req);
        return listByCondition(state, req);
      });
      r.get(`${prefix}/task/:id/image-seed`, async (req, reply) => {
        modeOf(req);
        await imageSeed(state, req, reply);
        return reply;
      });
    }
    r.post('/mj/notify', async (req) => notify(state, req));
    r.get('/mj/image/:id', async (req, reply) => {
      await image(state, req, reply);
      return reply;
    });
  });
  startTaskLoop(state.ctx, midjourneyTasks.platform(state));
}
