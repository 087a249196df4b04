import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import { newRequestId, REQUEST_ID_HEADER } from '../../infra/request-id.ts';
import { relayFailure } from '../errors.ts';
import { type RelayReply, type RelayRequest, setRelayCors } from '../exchange.ts';
import { LaneReply } from './lane-reply.ts';
import { isJsonType, readJson } from './read-json.ts';

export type LaneHandler = (req: RelayRequest, reply: RelayReply) => Promise<unknown>;

class LaneRequest implements RelayRequest {
  body: unknown = undefined;
  private logger?: FastifyBaseLogger;
  private address?: string;

  constructor(
    readonly raw: IncomingMessage,
    readonly id: string,
    private readonly root: FastifyBaseLogger,
    private readonly trust: ((addr: string, i: number) => boolean) | null,
  ) {}

  get url(): string {
    return this.raw.url ?? '/';
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  /** The peer, or with TRUSTED_PROXIES the client X-Forwarded-For names, exactly as Fastify computes it. */
  get ip(): string {
    if (this.address === undefined) {
      if (this.trust) {
        const all = proxyAddr.all(this.raw, this.trust);
        this.address = all[all.length - 1] ?? '';
      } else this.address = this.raw.socket.remoteAddress ?? '';
    }
    return this.address;
  }

  get log(): FastifyBaseLogger {
    this.logger ??= this.root.child({ reqId: this.id });
    return this.logger;
  }
}

/**
 * The relay's fast lane. A JSON POST to one of the relay's main endpoints is served straight from node:http,
 * without Fastify's per-request lifecycle (router, hooks, child logger, body parser, reply serialiser), which
 * cost more CPU than the relay's own work. Same handler, headers, limits and error bodies as the Fastify
 * route; every other request (other paths, methods or content types, compressed bodies, and any request while
 * closing) is left to Fastify.
 */
export function createLane(ctx: AppContext) {
  const routes = new Map<string, LaneHandler>();
  const limit = ctx.config.maxRequestBodyMb * 1024 * 1024;
  const trusted = ctx.config.trustedProxies;
  const trust = trusted.length ? proxyAddr.compile(trusted) : null;
  const log = ctx.log as FastifyBaseLogger;
  let closing = false;

  async function serve(handler: LaneHandler, raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const req = new LaneRequest(raw, newRequestId(), log, trust);
    const reply = new LaneReply(res);
    reply.header(REQUEST_ID_HEADER, req.id);
    setRelayCors(reply, raw.headers.origin);
    try {
      req.body = await readJson(raw, limit);
      await handler(req, reply);
    } catch (err) {
      if (reply.sent) {
        req.log.error({ err }, 'relay error after the reply started');
        if (!res.writableEnded) res.end();
        return;
      }
      const { status, body } = relayFailure(err, req.id, req.log);
      if (status >= 500) req.log.error({ url: req.url, status }, 'request failed');
      reply.code(status).send(body);
    }
  }

  return {
    /** Serves `path` (exact, no trailing slash) through the lane. */
    route(path: string, handler: LaneHandler): void {
      routes.set(path, handler);
    },
    close(): void {
      closing = true;
    },
    /** Takes a JSON POST to a lane path and returns true; anything else is left to the caller. */
    take(raw: IncomingMessage, res: ServerResponse): boolean {
      if (raw.method !== 'POST' || closing) return false;
      const url = raw.url ?? '';
      const q = url.indexOf('?');
      const handler = routes.get(q < 0 ? url : url.slice(0, q));
      // Compressed bodies are rare: Fastify's route decodes them (relay/request-decoding.ts).
      if (!handler || !isJsonType(raw.headers['content-type']) || raw.headers['content-encoding'])
        return false;
      void serve(handler, raw, res);
      return true;
    },
  };
}

export type Lane = ReturnType<typeof createLane>;
