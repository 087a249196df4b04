import { describe, expect, it } from 'vitest';
import { randomHex } from '../src/infra/random-hex.ts';
import { newRequestId } from '../src/infra/request-id.ts';
import { newId } from '../src/relay/formats/common.ts';

describe('random ids', () => {
  it('gives the asked number of random bytes as lower-case hex', () => {
    for (const bytes of [1, 4, 12, 16, 4096])
      expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
  });

  it('never hands out the same bytes twice, across many refills of its pool', () => {
    // 12-byte ids: about 340 a pool, so 20,000 of them span dozens of refills, and one that straddles a refill.
    const ids = Array.from({ length: 20_000 }, () => randomHex(12));
    expect(new Set(ids).size).toBe(ids.length);
    // Not all the same byte either: every hex digit shows up in a sample this size.
    expect(new Set(ids.join('')).size).toBe(16);
  });

  it('shapes request ids as a UTC second and 8 hex chars, and response ids as prefix plus 24', () => {
    const id = newRequestId(new Date(Date.UTC(2026, 10, 29, 7, 5, 9)));
    expect(id).toMatch(/^20261129070509[0-9a-f]{8}$/);
    expect(newRequestId(new Date(Date.UTC(2026, 10, 29, 7, 5, 9)))).not.toBe(id);
    expect(newId('msg_')).toMatch(/^msg_[0-9a-f]{24}$/);
  });
});
