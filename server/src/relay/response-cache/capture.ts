import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Records what the relay writes to the client (status, content type, body bytes) by wrapping `write`, `end` and
 * `writeHead` of this one response, whichever path writes it (Fastify, the fast lane, a hijacked stream). It
 * stops recording past `limit` bytes (too large to keep) and `stop` puts the methods back.
 */
export class ReplyCapture {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  overflow = false;
  private contentType = '';
  private readonly restore: () => void;

  constructor(
    private readonly raw: ServerResponse,
    private readonly limit: number,
  ) {
    const { write, end, writeHead } = raw;
    const self = this;
    raw.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      self.record(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    raw.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') self.record(chunk, rest[0]);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
    raw.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
      const headers = rest.find((r) => r && typeof r === 'object') as OutgoingHttpHeaders | undefined;
      const type = headers && !Array.isArray(headers) ? headers['content-type'] : undefined;
      if (type) self.contentType = String(type);
      return (writeHead as (...a: unknown[]) => ServerResponse).call(this, status, ...rest);
    } as ServerResponse['writeHead'];
    this.restore = () => {
      raw.write = write;
      raw.end = end;
      raw.writeHead = writeHead;
    };
  }

  private record(chunk: unknown, encoding: unknown): void {
    if (this.overflow || chunk === undefined || chunk === null) return;
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : null;
    if (!buf) return;
    this.bytes += buf.length;
    if (this.bytes > this.limit) {
      this.overflow = true;
      this.chunks.length = 0;
      return;
    }
    this.chunks.push(buf);
  }

  stop(): void {
    this.restore();
  }

  /** What was written, when it was a complete 2xx answer small enough to keep; else null. */
  result(): { status: number; contentType: string; body: string } | null {
    const { raw } = this;
    if (this.overflow || !raw.writableEnded || raw.statusCode < 200 || raw.statusCode >= 300) return null;
    const contentType = this.contentType || String(raw.getHeader('content-type') ?? '');
    return { status: raw.statusCode, contentType, body: Buffer.concat(this.chunks).toString('utf8') };
  }
}
