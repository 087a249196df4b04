/**
 * Joins concurrent refreshes of the same task in one process: a caller asking while another refresh of that
 * key is under way waits for it instead of asking the upstream again.
 */
export class SingleFlight<K> {
  private flights = new Map<K, Promise<void>>();

  /** Runs `work` for the keys not already in flight (with those keys), then waits for every key. */
  async run(keys: K[], work: (fresh: K[]) => Promise<void>): Promise<void> {
    const waiting: Promise<void>[] = [];
    const fresh: K[] = [];
    for (const k of keys) {
      const f = this.flights.get(k);
      if (f) waiting.push(f);
      else fresh.push(k);
    }
    if (fresh.length) {
      const p = work(fresh).finally(() => {
        for (const k of fresh) if (this.flights.get(k) === p) this.flights.delete(k);
      });
      for (const k of fresh) this.flights.set(k, p);
      waiting.push(p);
    }
    await Promise.all(waiting);
  }
}
