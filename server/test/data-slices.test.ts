import { describe, expect, test } from 'vitest';
import { DAY_SLICES, DEFAULT_SLICES, readInSlices, slicePaceFor } from '../src/modules/data/slices.ts';

/** Reads [since, end] with reads that each take `slowMs`, and returns the windows asked for. */
async function windows(since: number, end: number, pace = DEFAULT_SLICES, slowMs = 0) {
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
  );
  return seen;
}

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
});
