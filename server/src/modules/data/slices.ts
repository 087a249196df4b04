/**
 * Time-sliced reads for background jobs that scan the usage log (the dashboard export): the window of
 * `created_at` is read in consecutive slices sized so each query takes about `budgetMs`, with a turn of the
 * event loop between slices. On SQLite (whose driver runs queries on the main thread) one large GROUP BY over
 * hundreds of thousands of rows held the loop for seconds; sliced, no query holds it longer than about the
 * budget. PostgreSQL and MySQL run the query in their own process, so the time it takes does not hold the loop:
 * there a slice is a fixed day (a bounded result), whatever the machine's speed; pacing them by time made a busy
 * machine shrink the slices to a minute and send thousands of queries.
 */
export interface SlicePace {
  /** Seconds of `created_at` in the first slice. */
  firstStep: number;
  minStep: number;
  maxStep: number;
  budgetMs: number;
  /**
   * Most log rows in one slice, where the log can say where that many rows end (`RowBound`). A slice's time
   * alone does not bound it: slices grow over a quiet stretch of the log, and the next one may hold a busy hour.
   */
  maxRows: number;
}

/**
 * The `created_at` of the row `rows` places after the first row at or after `from` in time order, or undefined
 * when no more than that remain: where a slice from `from` holding at most `rows` rows must end.
 */
export type RowBound = (from: number, rows: number) => Promise<number | undefined>;

/**
 * SQLite: the first slice is a second of the log and grows while slices are quick. A busy instance writes a
 * thousand rows a second, so a first slice of an hour (or a floor of a minute) was one query over the whole
 * five minutes since the last export: a stall of over a second.
 */
export const DEFAULT_SLICES: SlicePace = { firstStep: 1, minStep: 1, maxStep: Infinity, budgetMs: 8, maxRows: 1000 };
/**
 * On the SQLite writer thread (ledger/worker/), where a slice holds no request but only the flushes queued behind
 * it: slices of about 50 ms and up to 50,000 rows, a fiftieth of the queries.
 */
export const THREAD_SLICES: SlicePace = { ...DEFAULT_SLICES, budgetMs: 50, maxRows: 50_000 };
const DAY = 86_400;
export const DAY_SLICES: SlicePace = {
  firstStep: DAY,
  minStep: DAY,
  maxStep: DAY,
  budgetMs: Infinity,
  maxRows: Infinity,
};

/** The pace for a database: time-budgeted where the query runs on this thread (SQLite), a day elsewhere. */
export const slicePaceFor = (dialect: string): SlicePace => (dialect === 'sqlite' ? DEFAULT_SLICES : DAY_SLICES);

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Calls `read(from, to)` for [since, since + step), [since + step, ...) until the slice that passes `end`, which
 * is read open-ended (`to` undefined) so rows written later with a later time are not missed. The step halves
 * when a slice took over the budget and doubles when it took under a quarter of it. With a `bound`, a slice
 * also holds at most `maxRows` rows (but spans at least a second, the log's resolution), and the slice
 * from which no more rows than that remain is the last.
 */
export async function readInSlices(
  since: number,
  end: number,
  read: (from: number, to: number | undefined) => Promise<void>,
  pace: SlicePace = DEFAULT_SLICES,
  bound?: RowBound,
): Promise<void> {
  let step = pace.firstStep;
  for (let from = since; ; ) {
    let to = from + step;
    let last = to > end;
    if (bound && Number.isFinite(pace.maxRows)) {
      const rowsEnd = await bound(from, pace.maxRows);
      if (rowsEnd === undefined) last = true;
      else if (rowsEnd < to) {
        to = Math.max(from + 1, rowsEnd);
        last = false;
      }
    }
    const started = performance.now();
    await read(from, last ? undefined : to);
    if (last) return;
    from = to;
    const took = performance.now() - started;
    if (took > pace.budgetMs) step = Math.max(pace.minStep, Math.floor(step / 2));
    else if (took < pace.budgetMs / 4) step = Math.min(pace.maxStep, step * 2);
    await tick();
  }
}

/** Adds `row` into the entry of `key` (summing the `sums` fields), or stores it as that key's first row. */
export function mergeInto<T extends Record<string, unknown>>(
  into: Map<string, T>,
  key: string,
  row: T,
  sums: ReadonlyArray<keyof T>,
): void {
  const seen = into.get(key);
  if (!seen) {
    into.set(key, row);
    return;
  }
  for (const f of sums) (seen as Record<keyof T, number>)[f] = Number(seen[f]) + Number(row[f]);
}
