/**
 * The settles in progress, counted by generation rather than held in a Set. A Set that every request adds to
 * and deletes from reallocates its table as it grows and shrinks, and a table held by a long-lived object
 * outlives the young generation: under the mix that was 6% of everything the main thread promoted.
 */
export class SettlesInFlight {
  private current = new Generation();

  track(settle: Promise<unknown>): void {
    const generation = this.current;
    generation.count++;
    settle.then(generation.end, generation.end);
  }

  /** Resolves when every settle tracked before the call has ended; those tracked after are not waited for. */
  drain(): Promise<void> {
    const generation = this.current;
    this.current = new Generation();
    return generation.ended();
  }
}

class Generation {
  count = 0;
  private resolve?: () => void;
  readonly end = () => {
    if (--this.count === 0) this.resolve?.();
  };

  ended(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}
