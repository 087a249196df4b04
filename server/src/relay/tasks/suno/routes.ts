import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { RelayError } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { classifyTaskError, registerTaskRoutes, type TaskFailure } from '../task-routes.ts';
import { failureBody, type SunoAnswer, SunoError } from './protocol.ts';
import { fetchMany, fetchOne } from './reads.ts';
import { sunoTasks } from './refresh.ts';
import { submit } from './submit.ts';

/** Any error of a Suno route as the proxy's answer: `{code, message, data: null}`. */
export function sunoFailure(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): TaskFailure<SunoAnswer<null>> {
  if (err instanceof SunoError) return { status: err.status, body: failureBody(err.code, err.message) };
  const { status, message, internal } = classifyTaskError(err, requestId, log, 'suno');
  if (internal) return { status, body: failureBody('internal_error', message) };
  const code =
    err instanceof RelayError && err.code
      ? err.code
      : status >= 500
        ? 'upstream_error'
        : status === 401
          ? 'invalid_api_key'
          : 'invalid_request';
  return { status, body: failureBody(code, message) };
}

/**
 * The Suno relay in the Suno API proxy's protocol (`/suno/submit/{music,lyrics}`, `/suno/fetch`), and the task
 * loop that keeps its tasks up to date (master only).
 */
export async function registerSuno(app: FastifyInstance, state: RelayState): Promise<void> {
  await registerTaskRoutes(app, state, {
    failure: sunoFailure,
    loop: sunoTasks.platform(state),
    routes(r) {
      r.post('/suno/submit/:action', async (req, reply) => {
        await submit(state, req, reply);
        return reply;
      });
      r.post('/suno/fetch', async (req) => fetchMany(state, req));
      r.get('/suno/fetch/:id', async (req) => fetchOne(state, req));
    },
  });
}
