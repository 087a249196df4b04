/** How often the calls in flight are looked at: a silent call ends between its limit and this much later. */
export const SWEEP_MS = 250;

/** An upstream call the watch can end. The links and `heard` belong to the watch. */
export interface Watched {
  /** The sweep count when the upstream was last heard from. */
  heard: number;
  /** Sweeps of silence allowed. */
  patience: number;
  /** True while the silence is the reader's (the socket held for a reader that is behind): not counted. */
  readonly waitingOnReader: boolean;
  /** Called once when the limit has passed; the call is no longer watched. */
  silent(): void;
  prevWatched: Watched | null;
  nextWatched: Watched | null;
}

/**
 * Upstream silence limits (the wait for the headers, and between body chunks), kept by one sweep over the calls
 * in flight instead of undici's timer per call. undici's timer object for a limit of a second or more lives until
 * its own half-second tick clears it, so every call left one in the old generation: under the mix, about a tenth
 * of what the main thread promoted (and of its full collections). Here a call is a few fields on an object it
 * already has, linked in a list the sweep walks; hearing from the upstream is one store.
 */
export class SilenceWatch {
  /** Sweeps so far: what a call records when it hears from its upstream. */
  tick = 0;
  private head: Watched | null = null;
  private readonly timer = setInterval(() => this.sweep(), SWEEP_MS);

  constructor() {
    this.timer.unref();
  }

  /** Watches `call`, ending it after `limitMs` of silence; a limit of 0 leaves it unwatched. */
  add(call: Watched, limitMs: number): void {
    if (!(limitMs > 0)) return;
    call.heard = this.tick;
    call.patience = Math.ceil(limitMs / SWEEP_MS);
    call.prevWatched = null;
    call.nextWatched = this.head;
    if (this.head) this.head.prevWatched = call;
    this.head = call;
  }

  /** Stops watching `call` (it ended); a call not watched is left as it is. */
  remove(call: Watched): void {
    if (call.prevWatched) call.prevWatched.nextWatched = call.nextWatched;
    else if (this.head === call) this.head = call.nextWatched;
    else return;
    if (call.nextWatched) call.nextWatched.prevWatched = call.prevWatched;
    call.prevWatched = null;
    call.nextWatched = null;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const tick = ++this.tick;
    let call = this.head;
    while (call) {
      const next = call.nextWatched;
      if (call.waitingOnReader) call.heard = tick;
      else if (tick - call.heard > call.patience) {
        this.remove(call);
        call.silent();
      }
      call = next;
    }
  }
}
