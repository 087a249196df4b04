import { describe, expect, it } from 'vitest';
import {
  builtInRows,
  effectiveRows,
  isPriced,
  overrideOf,
} from '../src/features/settings/pricing/effective.ts';
import { rowsFromOptions } from '../src/features/settings/pricing/priceMath.ts';

const builtIn = builtInRows({
  ModelPrice: { 'dall-e-3': 0.04 },
  ModelRatio: { 'gpt-4.1': 1, 'gpt-4o-mini': 0.075 },
  CompletionRatio: { 'gpt-4.1': 4, 'gpt-4o-mini': 4 },
  CacheRatio: { 'gpt-4.1': 0.25 },
});

describe('price editor: the price in effect (options over the built-in tables)', () => {
  it('lists built-in prices when nothing is saved, marked as built in', () => {
    const rows = effectiveRows([], builtIn);
    expect(rows.map((r) => [r.name, r.source])).toEqual([
      ['dall-e-3', 'builtin'],
      ['gpt-4.1', 'builtin'],
      ['gpt-4o-mini', 'builtin'],
    ]);
    expect(rows.find((r) => r.name === 'dall-e-3')).toMatchObject({ price: 0.04 });
    expect(rows.every(isPriced)).toBe(true);
  });

  it('merges a saved option field by field over the built-in price, as the relay does', () => {
    const saved = rowsFromOptions({ ModelRatio: '{"gpt-4.1":2,"own-model":3}' });
    const rows = effectiveRows(saved, builtIn);
    expect(rows.find((r) => r.name === 'gpt-4.1')).toEqual({
      name: 'gpt-4.1',
      source: 'override',
      ratio: 2,
      completionRatio: 4,
      cacheRatio: 0.25,
    });
    expect(rows.find((r) => r.name === 'own-model')).toMatchObject({ source: 'saved', ratio: 3 });
  });

  it('saves only what differs from the built-in price, nothing when it is the same', () => {
    const base = builtIn.find((r) => r.name === 'gpt-4.1');
    expect(overrideOf({ name: 'gpt-4.1', ratio: 1, completionRatio: 4, cacheRatio: 0.25 }, base)).toBeNull();
    expect(overrideOf({ name: 'gpt-4.1', ratio: 1.5, completionRatio: 4, cacheRatio: 0.25 }, base)).toEqual({
      name: 'gpt-4.1',
      ratio: 1.5,
    });
    expect(overrideOf({ name: 'new', ratio: 1 }, undefined)).toEqual({ name: 'new', ratio: 1 });
  });
});
