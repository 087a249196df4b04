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

  test('on SQLite a slice over the budget halves the next one, down to a minute', async () => {
    const seen = await windows(0, 4 * 3600, DEFAULT_SLICES, DEFAULT_SLICES.budgetMs + 2);
    const steps = seen.slice(0, -1).map(([from, to]) => (to as number) - from);
    expect(steps.slice(0, 4)).toEqual([3600, 1800, 900, 450]);
    expect(Math.min(...steps)).toBeGreaterThanOrEqual(DEFAULT_SLICES.minStep);
    expect(seen.at(-1)?.[1]).toBeUndefined();
  });
});
