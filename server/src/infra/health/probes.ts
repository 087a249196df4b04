import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReadinessCheck } from './readiness.ts';

export const PROBE_PATHS = ['/healthz', '/readyz'];

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text); // Node leaves the body out of a HEAD answer.
}

/**
 * GET (or HEAD) /healthz and /readyz, answered straight from node:http like the relay's lane: no rate limit,
 * no console hooks, and an answer even while Fastify is closing. /healthz is 200 while the process lives;
 * /readyz is 200 when every readiness check passes, else 503 with the reason.
 */
export function createProbes(readiness: ReadinessCheck) {
  return {
    /** Answers a probe and returns true; anything else is left to the caller. */
    take(req: IncomingMessage, res: ServerResponse): boolean {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      if (path === '/healthz') send(res, 200, { status: 'ok' });
      else if (path === '/readyz')
        readiness.check().then(
          (r) => send(res, r.ready ? 200 : 503, r.body),
          () => send(res, 503, { status: 'unavailable', reason: 'the readiness check failed', checks: {} }),
        );
      else return false;
      return true;
    },
  };
}
