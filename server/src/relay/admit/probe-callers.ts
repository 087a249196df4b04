import { randomBytes } from 'node:crypto';
import type { Caller } from './auth.ts';

/**
 * Callers the gateway itself sends through its own relay (the channel compatibility check): an admin paying
 * from their balance, pinned to one channel, without an access token. Each has a random key that lives in
 * this process's memory for the length of one run and never leaves it, so nothing outside can present one.
 */
const PREFIX = 'mgprobe-';
const probes = new Map<string, Caller>();

/** Registers a caller for one run; `end()` forgets its key. */
export function openProbe(caller: Caller): { key: string; end(): void } {
  const key = `${PREFIX}${randomBytes(32).toString('hex')}`;
  probes.set(key, caller);
  return { key, end: () => probes.delete(key) };
}

/** The caller a probe key stands for, or undefined for every other key. */
export const probeCaller = (key: string): Caller | undefined =>
  key.startsWith(PREFIX) ? probes.get(key) : undefined;
