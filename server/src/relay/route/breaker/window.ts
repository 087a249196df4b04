const BUCKETS = 20;

/**
 * Attempts and failures over a sliding window, kept in a fixed ring of buckets (a twentieth of the window
 * each), so memory stays the same however busy a channel is and old attempts fall out a bucket at a time.
 */
export class SlidingCount {
  private readonly bucketMs: number;
  private readonly stamp = new Array<number>(BUCKETS).fill(-1);
  private readonly total = new Array<number>(BUCKETS).fill(0);
  private readonly failed = new Array<number>(BUCKETS).fill(0);

  constructor(windowMs: number) {
    this.bucketMs = Math.max(1, windowMs / BUCKETS);
  }

  add(now: number, failed: boolean): void {
    const n = Math.floor(now / this.bucketMs);
    const slot = n % BUCKETS;
    if (this.stamp[slot] !== n) {
      this.stamp[slot] = n;
      this.total[slot] = 0;
      this.failed[slot] = 0;
    }
    this.total[slot]++;
    if (failed) this.failed[slot]++;
  }

  /** The attempts and failures still inside the window at `now`. */
  sums(now: number): { total: number; failed: number } {
    const n = Math.floor(now / this.bucketMs);
    let total = 0;
    let failed = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.stamp[i] <= n - BUCKETS) continue;
      total += this.total[i];
      failed += this.failed[i];
    }
    return { total, failed };
  }
}
