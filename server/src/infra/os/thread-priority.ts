import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

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
