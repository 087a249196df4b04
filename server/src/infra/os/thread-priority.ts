import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority (a nice value; 10 by default), for a thread whose work can
 * wait: where it shares a core with the event loop, the kernel then runs the request thread first. On Linux a
 * thread is a task with its own id (read from /proc/thread-self) and setpriority() on that id moves that thread
 * alone; elsewhere nothing changes. Returns whether the priority was lowered.
 */
export function lowerThisThreadPriority(nice = 10): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lowers the scheduling priority of every thread of this process but the event loop's, as they are when it is
 * called: at start, those are Node's own (V8's helper threads, which mark and sweep the heap concurrently, and
 * its task scheduler). They then run at the process's nice value plus 10 (at most 19), so where they share a
 * core with the event loop the kernel runs the requests first: in the mix benchmark, with the gateway on one
 * core, the full collections' concurrent marking and sweeping took the core from the event loop for 100-150 ms
 * at each (README, Under real traffic). On other cores, and when the event loop waits, they run as before.
 * Returns how many threads were lowered (0 off Linux).
 */
export function lowerRuntimeThreadsPriority(): number {
  if (process.platform !== 'linux') return 0;
  let lowered = 0;
  try {
    const nice = Math.min(19, getPriority(process.pid) + 10);
    for (const tid of readdirSync('/proc/self/task')) {
      if (Number(tid) === process.pid) continue;
      try {
        setPriority(Number(tid), nice);
        lowered++;
      } catch {
        // A thread that ended since the listing.
      }
    }
  } catch {
    // No /proc: nothing to lower.
  }
  return lowered;
}
