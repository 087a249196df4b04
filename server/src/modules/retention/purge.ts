/**
 * How a purge paces itself. Each batch is one short statement pair (select the ids, delete them), sized so it
 * takes about `budgetMs`; then the purge rests `restFactor` times as long as the batch took (at least
 * `minRestMs`), so the relay's log writer and console pages always get the database, and on SQLite (whose
 * driver runs queries on the main thread) the event loop, between batches.
 */
export interface PurgePace {
  firstBatch: number;
  minBatch: number;
  maxBatch: number;
  budgetMs: number;
  restFactor: number;
  minRestMs: number;
}

// 8 ms per batch: on SQLite a batch is that long a pause of the event loop (the gateway's stall target is 20 ms).
// Small batches: with the usage log's indexes an old row costs 0.2 to 1 ms of SQLite's time to delete under load
// (its index pages are rarely cached), so a first batch of 200 rows held the loop for 42 ms in the soak, and
// batches of 20 for 15-24 ms.
export const DEFAULT_PACE: PurgePace = {
  firstBatch: 10,
  minBatch: 5,
  maxBatch: 2000,
  budgetMs: 8,
  restFactor: 3,
  minRestMs: 50,
};

export interface PurgeSource {
  /** Ids of up to `limit` expired rows, oldest first. */
  nextIds(limit: number): Promise<number[]>;
  remove(ids: number[]): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The wait between two batches; `ms` is what the pace asks for. */
export type Rest = (ms: number) => Promise<unknown>;

/**
 * Deletes expired rows batch by batch until none is left or `stopped()` says so; returns how many went. `rest`
 * is the wait between batches (a test may also wait there for what must happen between them).
 */
export async function purgeInBatches(
  source: PurgeSource,
  stopped: () => boolean,
  pace: PurgePace = DEFAULT_PACE,
  rest: Rest = sleep,
): Promise<number> {
  let batch = pace.firstBatch;
  let deleted = 0;
  while (!stopped()) {
    const started = performance.now();
    const ids = await source.nextIds(batch);
    if (ids.length > 0) await source.remove(ids);
    deleted += ids.length;
    if (ids.length < batch) break;
    const took = performance.now() - started;
    // Aim the next batch at the time budget: halve when over it, grow when well under it.
    if (took > pace.budgetMs) batch = Math.max(pace.minBatch, Math.floor(batch / 2));
    else if (took < pace.budgetMs / 2) batch = Math.min(pace.maxBatch, batch * 2);
    await rest(Math.max(pace.minRestMs, took * pace.restFactor));
  }
  return deleted;
}
