import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Pins a process (all its threads) to one core with taskset; false when taskset is missing or refuses. */
export function pin(pid: number, core: number): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The setting: the load generator (this process) on core 0, gateway and mock upstream on core 1.
 * Returns whether pinning worked, so the children are pinned too.
 */
export const pinLoadGenerator = (): boolean => availableParallelism() >= 2 && pin(process.pid, 0);
