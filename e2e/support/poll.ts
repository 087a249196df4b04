import { expect } from 'vitest';

/** `expect.poll` with a timeout that suits a browser (vitest's default of 1 s is too short on a busy machine). */
export function poll<T>(fn: () => T | Promise<T>, timeout = 10_000) {
  return expect.poll(fn, { timeout, interval: 100 });
}
