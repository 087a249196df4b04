import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import type { RelayReply } from '../exchange.ts';

const isStream = (v: unknown): v is Readable =>
  !!v && typeof v === 'object' && typeof (v as Readable).pipe === 'function';

/**
 * The fast lane's reply: headers collected in a plain object and written with the body in one writeHead/end,
 * with the same content types Fastify would pick (JSON for values, text for strings, a stream piped).
 */
export class LaneReply implements RelayReply {
  statusCode = 200;
  private readonly headers: Record<string, string> = {};
  hijacked = false;

  constructor(readonly raw: ServerResponse) {}

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  header(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  getHeaders(): Record<string, string> {
    return this.headers;
  }

  hijack(): this {
    this.hijacked = true;
    return this;
  }

  get sent(): boolean {
    return this.hijacked || this.raw.headersSent;
  }

  send(payload?: unknown): this {
    const h = this.headers;
    if (isStream(payload)) {
      this.raw.writeHead(this.statusCode, h);
      pipeline(payload, this.raw, () => {});
      return this;
    }
    let body: string | Buffer;
    if (typeof payload === 'string') {
      body = payload;
      h['content-type'] ??= 'text/plain; charset=utf-8';
    } else if (Buffer.isBuffer(payload)) {
      body = payload;
      h['content-type'] ??= 'application/octet-stream';
    } else if (payload === undefined) {
      body = '';
    } else {
      body = JSON.stringify(payload);
      h['content-type'] ??= 'application/json; charset=utf-8';
    }
    h['content-length'] = String(Buffer.byteLength(body));
    this.raw.writeHead(this.statusCode, h);
    this.raw.end(body);
    return this;
  }
}
