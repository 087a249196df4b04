import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, errors, util } from 'undici';
import { CallAbort } from './call-abort.ts';
import type { SilenceWatch, Watched } from './silence-watch.ts';

/** An upstream answer's body: read whole as text, or chunk by chunk as it arrives. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
}

/** An upstream answer: status, headers (lower-case names) and the body still arriving. */
export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

type Abort = (reason?: Error) => void;
type Signal = CallAbort | AbortSignal;

/** A chunked read pauses the upstream socket while this many bytes wait unread. */
const HIGH_WATER = 64 * 1024;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * One upstream call on undici's dispatch API (its handler interface): the answer resolves at the headers and
 * its body queues chunks until read. undici's request() builds a Readable stream, an async resource and a
 * stream iterator for every call, which cost more than the relay's own work on a small answer; this keeps a
 * list of buffers and one pending read.
 */
export class DispatchedCall implements Dispatcher.DispatchHandler, UpstreamBody, Watched {
  private chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: unknown = null;
  private waiter: { resolve: (v: IteratorResult<Buffer>) => void; reject: (e: unknown) => void } | null =
    null;
  private whole: { resolve: (v: string) => void; reject: (e: unknown) => void } | null = null;
  private abortCall: Abort | null = null;
  private resumeSocket: (() => void) | null = null;
  private paused = false;
  private started = false;
  private unlisten: (() => void) | null = null;
  // The silence watch's fields (silence-watch.ts).
  heard = 0;
  patience = 0;
  prevWatched: Watched | null = null;
  nextWatched: Watched | null = null;

  constructor(
    signal: Signal | undefined,
    private readonly answered: { resolve: (v: UpstreamResponse) => void; reject: (e: unknown) => void },
    private readonly silence?: SilenceWatch,
  ) {
    if (signal)
      this.unlisten = listen(signal, () => this.cancel(signal.reason ?? new errors.RequestAbortedError()));
  }

  /**
   * Sends `opts` on `dispatcher`; resolves with the answer once its headers arrive. With `silence`, the call
   * ends after `silence.ms` without a byte from the upstream (before its headers: HeadersTimeoutError; between
   * body chunks: BodyTimeoutError), time the reader is behind not counted.
   */
  static send(
    dispatcher: Dispatcher,
    opts: Dispatcher.DispatchOptions,
    signal: Signal | undefined,
    silence?: { watch: SilenceWatch; ms: number },
  ): Promise<UpstreamResponse> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new errors.RequestAbortedError());
    return new Promise((resolve, reject) => {
      const call = new DispatchedCall(signal, { resolve, reject }, silence?.watch);
      silence?.watch.add(call, silence.ms);
      dispatcher.dispatch(opts, call);
    });
  }

  // --- the silence watch ---

  get waitingOnReader(): boolean {
    return this.paused;
  }

  silent(): void {
    this.cancel(this.started ? new errors.BodyTimeoutError() : new errors.HeadersTimeoutError());
  }

  // --- undici's handler ---

  onConnect(abort: Abort): void {
    if (this.failure) abort(this.failure as Error);
    else this.abortCall = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (this.silence) this.heard = this.silence.tick;
    if (statusCode < 200) return true;
    this.resumeSocket = resume;
    this.started = true;
    this.answered.resolve({
      statusCode,
      headers: util.parseHeaders(rawHeaders) as IncomingHttpHeaders,
      body: this,
    });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.failure) return true;
    if (this.silence) this.heard = this.silence.tick;
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w.resolve({ done: false, value: chunk });
      return true;
    }
    this.chunks.push(chunk);
    this.queued += chunk.length;
    // A whole-body read takes everything; a chunked read holds the socket while the reader is behind.
    if (this.whole || this.queued < HIGH_WATER) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    this.ended = true;
    this.silence?.remove(this);
    this.unlisten?.();
    this.unlisten = null;
    if (this.whole) this.finishWhole();
    else if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve(DONE);
    }
  }

  onError(err: Error): void {
    this.fail(err);
  }

  // --- the body ---

  text(): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.whole = { resolve, reject };
      if (this.ended) this.finishWhole();
      else if (this.paused) this.resume();
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: () => this.next(),
      return: () => {
        if (!this.ended) this.cancel(new errors.RequestAbortedError());
        return Promise.resolve(DONE);
      },
    };
  }

  private next(): Promise<IteratorResult<Buffer>> {
    if (this.chunks.length) {
      // What has arrived goes as one chunk: a stream's chunk boundaries carry no meaning.
      const value = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.queued);
      this.chunks = [];
      this.queued = 0;
      if (this.paused) this.resume();
      return Promise.resolve({ done: false, value });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private resume(): void {
    this.paused = false;
    this.resumeSocket?.();
  }

  private finishWhole(): void {
    const w = this.whole;
    if (!w) return;
    this.whole = null;
    const c = this.chunks;
    w.resolve(c.length === 1 ? c[0].toString() : Buffer.concat(c, this.queued).toString());
    this.chunks = [];
    this.queued = 0;
  }

  /** Stops the call (the caller's signal, or a reader that stopped early). */
  private cancel(reason: unknown): void {
    if (this.ended || this.failure) return;
    const abort = this.abortCall;
    this.fail(reason);
    abort?.(reason as Error);
  }

  private fail(err: unknown): void {
    if (this.failure || this.ended) return;
    this.failure = err;
    this.silence?.remove(this);
    this.chunks = [];
    this.queued = 0;
    this.unlisten?.();
    this.unlisten = null;
    if (!this.started) {
      this.answered.reject(err);
      return;
    }
    const w = this.waiter ?? this.whole;
    this.waiter = null;
    this.whole = null;
    w?.reject(err);
  }
}

/** Calls `fn` when `signal` aborts; returns the function that stops listening. */
function listen(signal: Signal, fn: () => void): () => void {
  if (signal instanceof CallAbort) {
    signal.on('abort', fn);
    return () => signal.removeListener('abort', fn);
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}
