import { describe, expect, it } from 'vitest';
import { SettlesInFlight } from '../src/ledger/settles-in-flight.ts';

/** A promise settled from outside, and whether a drain has resolved yet. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const state = (p: Promise<void>) => {
  const seen = { done: false };
  void p.then(() => {
    seen.done = true;
  });
  return seen;
};
const turn = () => new Promise((r) => setImmediate(r));

describe('settles in flight', () => {
  it('a drain with nothing tracked resolves at once', async () => {
    const settles = new SettlesInFlight();
    const drained = state(settles.drain());
    await turn();
    expect(drained.done).toBe(true);
  });

  it('a drain waits for every settle tracked before it, resolved or rejected, and not for later ones', async () => {
    const settles = new SettlesInFlight();
    const a = deferred();
    const b = deferred();
    settles.track(a.promise);
    settles.track(b.promise);
    b.promise.catch(() => {});
    const first = state(settles.drain());
    const later = deferred();
    settles.track(later.promise);

    a.resolve();
    await turn();
    expect(first.done).toBe(false);
    b.reject(new Error('settle failed'));
    await turn();
    expect(first.done).toBe(true);

    // The settle tracked after the first drain belongs to the next one.
    const second = state(settles.drain());
    await turn();
    expect(second.done).toBe(false);
    later.resolve();
    await turn();
    expect(second.done).toBe(true);
  });

  it('thousands of settles ending in any order drain exactly once all have ended', async () => {
    const settles = new SettlesInFlight();
    const all = Array.from({ length: 5_000 }, () => deferred());
    for (const d of all) settles.track(d.promise);
    const drained = state(settles.drain());
    const order = all.map((_, i) => (i * 7_919) % all.length);
    for (const i of order.slice(0, -1)) all[i].resolve();
    await turn();
    expect(drained.done).toBe(false);
    all[order[order.length - 1]].resolve();
    await turn();
    expect(drained.done).toBe(true);
  });
});
