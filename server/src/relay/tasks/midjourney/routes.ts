import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { RelayState } from '../../relay-state.ts';
import { classifyTaskError, registerTaskRoutes, type TaskFailure } from '../task-routes.ts';
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
): TaskFailure<SubmitResult> {
  if (err instanceof MjError) return { status: err.status, body: failureBody(err.code, err.message) };
  const { status, message, internal } = classifyTaskError(err, requestId, log, 'midjourney');
  if (internal) return { status, body: failureBody(MjCode.Failure, message) };
  const code = status === 404 ? MjCode.NotFound : status >= 500 ? MjCode.Failure : MjCode.ValidationError;
  return { status, body: failureBody(code, message) };
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
  await registerTaskRoutes(app, state, {
    failure: mjFailure,
    loop: midjourneyTasks.platform(state),
    routes(r) {
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
    },
  });
}
