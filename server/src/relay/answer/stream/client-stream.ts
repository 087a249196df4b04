import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SSE_HEADERS } from './sse.ts';

export interface ClientStreamOptions {
  raw: ServerResponse;
  /** The reply's headers so far (CORS, request id); unset ones are skipped. */
  headers: Record<string, unknown>;
  /** Seconds between keep-alive comments while the stream is quiet; 0 = off. */
  pingSeconds: number;
  /** Aborts the upstream read (the client left). */
  abort: () => void;
  /** Called once, just before the first byte goes to the client (the framework lets go of the reply). */
  onStart: () => void;
  /** The reply's content type; SSE by default (Gemini's JSON-array stream is application/json). */
  contentType?: string;
}

/**
 * The client's side of a relayed stream: headers on the first write (so a stream that fails before it can
 * still be retried elsewhere), writes that wait for the socket to drain, keep-alive comments while the
 * upstream is quiet, and the client leaving (which aborts the upstream read).
 *
 * Writes are corked until the event loop's next check phase: what one upstream read produced, the stream's
 * end included when it came in the same read, goes to the socket in one writev instead of one per write (a
 * socket write is the costliest step of relaying a short stream).
 */
export class ClientStream {
  started = false;
  clientGone = false;
  /** ms from `startedAt` until the first bytes reached the client. */
  firstAt = 0;
  private quietTick = false;
  /** The socket corked by the last write, until the next check phase. */
  private corked: Socket | null = null;
  private ping: NodeJS.Timeout | undefined;
  private readonly raw: ServerResponse;

  constructor(
    private readonly o: ClientStreamOptions,
    private readonly startedAt: number,
  ) {
    this.raw = o.raw;
    this.raw.on('close', this.onClose);
    if (o.pingSeconds > 0) {
      // With keep-alive pings the headers go out at once, so a silent upstream does not look like a dead connection.
      this.start();
      this.quietTick = true;
      this.ping = setInterval(() => {
        // A ping goes out when nothing was written during the whole last interval.
        if (this.quietTick && !this.clientGone) this.raw.write(': PING\n\n');
        this.quietTick = true;
      }, o.pingSeconds * 1000);
    }
  }

  private onClose = () => {
    if (!this.raw.writableFinished) {
      this.clientGone = true;
      this.o.abort();
    }
  };

  start(): void {
    if (this.started) return;
    this.started = true;
    this.o.onStart();
    const headers: Record<string, string> = {};
    const own = this.o.headers;
    for (const k in own) if (own[k] !== undefined) headers[k] = String(own[k]);
    Object.assign(headers, SSE_HEADERS);
    if (this.o.contentType) headers['content-type'] = this.o.contentType;
    this.raw.writeHead(200, headers);
  }

  /** Writes bytes for the client, waiting while its socket is full. */
  async write(s: string | Uint8Array): Promise<void> {
    if (!this.firstAt) this.firstAt = Math.max(1, Math.round(performance.now() - this.startedAt));
    this.start();
    this.quietTick = false;
    // The socket itself: the response lets go of it once finished, and its uncork would then miss it.
    const socket = this.raw.socket;
    if (!this.corked && socket) {
      this.corked = socket;
      socket.cork();
      setImmediate(this.uncork);
    }
    if (!this.raw.write(s) && !this.clientGone) {
      await new Promise<void>((resolve) => {
        this.raw.once('drain', resolve);
        this.raw.once('close', resolve);
      });
    }
  }

  private uncork = () => {
    this.corked?.uncork();
    this.corked = null;
  };

  /** Stops the pings; the stream's end is written by the caller. */
  stop(): void {
    if (this.ping) clearInterval(this.ping);
  }
}
