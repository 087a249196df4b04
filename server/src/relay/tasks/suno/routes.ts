import type { FastifyBaseLogger, FastifyError, FastifyInstance } from 'fastify';
import { friendlyClientError } from '../../../infra/client-error.ts';
import { ApiError } from '../../../infra/envelope.ts';
import { setRelayCors } from '../../http/exchange.ts';
import { parseJsonBody } from '../../http/json-body.ts';
import { RelayError } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { startTaskLoop } from '../loop.ts';
import { failureBody, type SunoAnswer, SunoError } from './protocol.ts';
import { fetchMany, fetchOne } from './reads.ts';
import { sunoTasks } from './refresh.ts';
import { submit } from './submit.ts';

/** Any error of a Suno route as the proxy's answer: `{code, message, data: null}`. */
export function sunoFailure(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { status: number; body: SunoAnswer<null> } {
  if (err instanceof SunoError) return { status: err.status, body: failureBody(err.code, err.message) };
  const suffix = ` (request id: ${requestId})`;
  const status =
    err instanceof RelayError || err instanceof ApiError
      ? err.status
      : ((err as FastifyError).statusCode ?? 500);
  if (status >= 500 && !(err instanceof RelayError)) {
    log.error({ err }, 'suno relay error');
    return { status: 500, body: failureBody('internal_error', `internal error${suffix}`) };
  }
  const message =
    err instanceof RelayError || err instanceof ApiError
      ? err.message
      : friendlyClientError(err as FastifyError);
  const code =
    err instanceof RelayError && err.code
      ? err.code
      : status >= 500
        ? 'upstream_error'
        : status === 401
          ? 'invalid_api_key'
          : 'invalid_request';
  return { status, body: failureBody(code, `${message}${suffix}`) };
}

/**
 * The Suno relay in the Suno API proxy's protocol (`/suno/submit/{music,lyrics}`, `/suno/fetch`), and the task
 * loop that keeps its tasks up to date (master only).
 */
export async function registerSuno(app: FastifyInstance, state: RelayState): Promise<void> {
  await app.register(async (r) => {
    r.setErrorHandler((err, req, reply) => {
      const { status, body } = sunoFailure(err, req.id, req.log);
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
    r.post('/suno/submit/:action', async (req, reply) => {
      await submit(state, req, reply);
      return reply;
    });
    r.post('/suno/fetch', async (req) => fetchMany(state, req));
    r.get('/suno/fetch/:id', async (req) => fetchOne(state, req));
  });
  startTaskLoop(state.ctx, sunoTasks.platform(state));
}
