import type { FastifyBaseLogger, FastifyError, FastifyInstance } from 'fastify';
import { friendlyClientError } from '../../infra/client-error.ts';
import { ApiError } from '../../infra/envelope.ts';
import { setRelayCors } from '../http/exchange.ts';
import { parseJsonBody } from '../http/json-body.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { TaskPlatform } from './loop.ts';
import { startTaskLoop } from './loop.ts';

/** A route error as a platform answers it: the status and the body in the platform's protocol. */
export interface TaskFailure<Body> {
  status: number;
  body: Body;
}

/**
 * What any error of a task route is before a platform words it: its status, and its message with the request
 * id, or `internal` for a bug (logged here) whose message must not reach the client.
 */
export function classifyTaskError(
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
  platform: string,
): { status: number; message: string; internal: boolean } {
  const suffix = ` (request id: ${requestId})`;
  const known = err instanceof RelayError || err instanceof ApiError;
  const status = known ? err.status : ((err as FastifyError).statusCode ?? 500);
  if (status >= 500 && !(err instanceof RelayError)) {
    log.error({ err }, `${platform} relay error`);
    return { status: 500, message: `internal error${suffix}`, internal: true };
  }
  const message = known ? err.message : friendlyClientError(err as FastifyError);
  return { status, message: `${message}${suffix}`, internal: false };
}

/**
 * Registers a task platform's routes in a scope of their own (its error answers, JSON bodies as the relay
 * parses them, the relay's CORS), then starts its task loop (master only).
 */
export async function registerTaskRoutes<Body>(
  app: FastifyInstance,
  state: RelayState,
  platform: {
    failure(err: unknown, requestId: string, log: FastifyBaseLogger): TaskFailure<Body>;
    routes(r: FastifyInstance): void;
    loop: TaskPlatform;
  },
): Promise<void> {
  await app.register(async (r) => {
    r.setErrorHandler((err, req, reply) => {
      const { status, body } = platform.failure(err, req.id, req.log);
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
    platform.routes(r);
  });
  startTaskLoop(state.ctx, platform.loop);
}
