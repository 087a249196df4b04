import { describe, expect, test } from 'vitest';
import {
  DAY_SLICES,
  DEFAULT_SLICES,
  type RowBound,
  readInSlices,
  slicePaceFor,
} from '../src/modules/data/slices.ts';

/** Reads [since, end] with reads that each take `slowMs`, and returns the windows asked for. */
async function windows(since: number, end: number, pace = DEFAULT_SLICES, slowMs = 0, bound?: RowBound) {
  const seen: [number, number | undefined][] = [];
  await readInSlices(
    since,
    end,
    async (from, to) => {
      seen.push([from, to]);
      const until = performance.now() + slowMs;
      while (performance.now() < until);
    },
    pace,
    bound,
  );
  return seen;
}

/** A log whose rows have these times (sorted), answering where the next `rows` rows from a time end. */
const logOf =
  (times: number[]): RowBound =>
  async (from, rows) => {
    const first = times.findIndex((t) => t >= from);
    return first < 0 ? undefined : times[first + rows];
  };

describe('usage-log reads in slices', () => {
  test('SQLite paces by time, the other engines by the day', () => {
    expect(slicePaceFor('sqlite')).toBe(DEFAULT_SLICES);
    expect(slicePaceFor('postgres')).toBe(DAY_SLICES);
    expect(slicePaceFor('mysql')).toBe(DAY_SLICES);
  });

  test('a day a query however slow the queries are, the last one open-ended', async () => {
    const day = 86_400;
    const seen = await windows(0, 3 * day - 1, DAY_SLICES, 20);
    expect(seen).toEqual([
      [0, day],
      [day, 2 * day],
      [2 * day, undefined],
    ]);
  });

  test('on SQLite the first slice is a second, doubling while the reads take under a quarter of the budget', async () => {
    const seen = await windows(0, 3600);
    const steps = seen.slice(0, -1).map(([from, to]) => (to as number) - from);
    expect(steps.slice(0, 6)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(seen.at(-1)?.[1]).toBeUndefined();
  });

  test('on SQLite a slice over the budget halves the next one, down to a second', async () => {
    const slow = DEFAULT_SLICES.budgetMs + 2;
    const halving = await windows(0, 6751, { ...DEFAULT_SLICES, firstStep: 3600 }, slow);
    const steps = halving.slice(0, -1).map(([from, to]) => (to as number) - from);
    expect(steps).toEqual([3600, 1800, 900, 450]);
    expect(halving.at(-1)).toEqual([6750, undefined]);
    const floor = await windows(0, 5, DEFAULT_SLICES, slow);
    expect(floor).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, undefined],
    ]);
  });

  test('on SQLite a slice ends before its maxRows-th row, so a busy hour after a quiet one is read in parts', async () => {
    // Nothing for two hours, then 10,000 rows in the last 100 seconds (the soak's shape: slices had doubled to
    // over an hour over the quiet part, and the last one read every busy row at once, half a second of SQLite).
    const busy = Array.from({ length: 10_000 }, (_, i) => 7100 + Math.floor(i / 100));
    const seen = await windows(0, 7200, DEFAULT_SLICES, 0, logOf(busy));
    const rowsIn = ([from, to]: [number, number | undefined]) =>
      busy.filter((t) => t >= from && (to === undefined || t < to)).length;
    expect(Math.max(...seen.map(rowsIn))).toBeLessThanOrEqual(DEFAULT_SLICES.maxRows);
    expect(seen.reduce((n, w) => n + rowsIn(w), 0)).toBe(busy.length);
    // Contiguous from the start, the last one open-ended once no more than maxRows rows remain.
    for (let i = 1; i < seen.length; i++) expect(seen[i][0]).toBe(seen[i - 1][1]);
    expect(seen[0][0]).toBe(0);
    expect(seen.at(-1)?.[1]).toBeUndefined();
    expect(rowsIn(seen.at(-1) as [number, undefined])).toBeLessThanOrEqual(DEFAULT_SLICES.maxRows);
  });

  test('a second holding more than maxRows rows is still one slice (the log counts time in seconds)', async () => {
    const crowded = Array.from({ length: 7000 }, () => 50);
    const seen = await windows(0, 60, DEFAULT_SLICES, 0, logOf(crowded));
    expect(seen.map((w) => w[0])).toContain(50);
    const at50 = seen.find((w) => w[0] === 50);
    expect(at50?.[1] === undefined || at50[1] === 51).toBe(true);
  });
});
