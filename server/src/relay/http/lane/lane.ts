import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { newRequestId, REQUEST_ID_HEADER } from '../../../infra/request-id.ts';
import type { WireFormat } from '../../formats/hub.ts';
import { failureIn } from '../error-reply.ts';
import { type RelayReply, type RelayRequest, setRelayCors } from '../exchange.ts';
import { LaneReply } from './lane-reply.ts';
import { isJsonType, readJson } from './read-json.ts';

export type LaneHandler = (req: RelayRequest, reply: RelayReply) => Promise<unknown>;

/** What serves one lane path: the handler, and the protocol its errors are written in. */
export interface LaneRoute {
  handler: LaneHandler;
  format: WireFormat;
}

/** A raw node:http request as the relay reads it (the lane's requests, and realtime upgrades). */
export class LaneRequest implements RelayRequest {
  body: unknown = undefined;
  private logger?: FastifyBaseLogger;
  private address?: string;
  private params?: Record<string, string>;

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

  /** The query string's parameters (Gemini clients may send the key as `?key=`). */
  get query(): Record<string, string> {
    if (!this.params) {
      const url = this.url;
      const q = url.indexOf('?');
      this.params = q < 0 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
    }
    return this.params;
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
  let resolve: (path: string) => LaneRoute | null = () => null;
  const limit = ctx.config.maxRequestBodyMb * 1024 * 1024;
  const trusted = ctx.config.trustedProxies;
  const trust = trusted.length ? proxyAddr.compile(trusted) : null;
  const log = ctx.log as FastifyBaseLogger;
  let closing = false;

  async function serve(route: LaneRoute, raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const req = new LaneRequest(raw, newRequestId(), log, trust);
    const reply = new LaneReply(res);
    reply.header(REQUEST_ID_HEADER, req.id);
    setRelayCors(reply, raw.headers.origin);
    try {
      req.body = await readJson(raw, limit);
      await route.handler(req, reply);
    } catch (err) {
      if (reply.sent) {
        req.log.error({ err }, 'relay error after the reply started');
        if (!res.writableEnded) res.end();
        return;
      }
      const { status, body, headers } = failureIn(route.format, err, req.id, req.log);
      // The path only: Gemini clients may put their key in the query string.
      if (status >= 500) req.log.error({ url: req.url.split('?')[0], status }, 'request failed');
      if (headers) for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      reply.code(status).send(body);
    }
  }

  return {
    /** How the lane finds the route of a path (exact, no trailing slash, query removed); null = not the lane's. */
    use(resolver: (path: string) => LaneRoute | null): void {
      resolve = resolver;
    },
    close(): void {
      closing = true;
    },
    /** Takes a JSON POST to a lane path and returns true; anything else is left to the caller. */
    take(raw: IncomingMessage, res: ServerResponse): boolean {
      if (raw.method !== 'POST' || closing) return false;
      const url = raw.url ?? '';
      const q = url.indexOf('?');
      const route = resolve(q < 0 ? url : url.slice(0, q));
      // Compressed bodies are rare: Fastify's route decodes them (relay/http/content-encoding.ts).
      if (!route || !isJsonType(raw.headers['content-type']) || raw.headers['content-encoding']) return false;
      void serve(route, raw, res);
      return true;
    },
  };
}

export type Lane = ReturnType<typeof createLane>;
