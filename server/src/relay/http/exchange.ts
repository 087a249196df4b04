import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The parts of a request the relay reads. Fastify's request has them, and so does the fast lane's
 * (`http/lane/`), which serves the JSON endpoints without Fastify's per-request lifecycle.
 */
export interface RelayRequest {
  readonly id: string;
  readonly url: string;
  readonly ip: string;
  readonly headers: IncomingHttpHeaders;
  readonly query?: unknown;
  readonly body?: unknown;
  readonly log: FastifyBaseLogger;
  readonly raw: IncomingMessage;
}

/** The relay's CORS headers (any origin, with credentials), set on every relay reply by both paths. */
export function setRelayCors(reply: Pick<RelayReply, 'header'>, origin: string | undefined): void {
  reply.header('access-control-allow-origin', origin ?? '*');
  reply.header('access-control-allow-credentials', 'true');
}

/** The parts of a reply the relay uses: Fastify's reply, or the fast lane's. */
export interface RelayReply {
  readonly raw: ServerResponse;
  code(status: number): RelayReply;
  header(name: string, value: string): RelayReply;
  getHeaders(): Record<string, unknown>;
  /** A string, a Buffer, a readable stream (piped) or a value sent as JSON. */
  send(payload?: unknown): RelayReply;
  /** The caller writes `raw` itself from now on. */
  hijack(): RelayReply;
}
