/**
 * Aborts one upstream call: on the relay timeout, or when a streaming client goes away. undici accepts an
 * EventEmitter-like object (`on`/`once`, `removeListener`, `aborted`, `reason`) as a request's signal and
 * registers one listener; this costs a few fields, where an AbortController builds an EventTarget per request.
 */
export class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | null = null;

  on(_event: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  once(event: 'abort', listener: () => void): void {
    this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = null;
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.listener = null;
    listener?.();
  }
}
