import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from '../process-group.ts';

/**
 * CPU time a process's threads have used so far, in microseconds, read from Linux's /proc: the main thread's user
 * and system time apart, and all its other threads together (V8's helper threads, which collect garbage and
 * compile; the gateway's usage-log writer and password threads; libuv's pool). Undefined where /proc is not there.
 */
export interface ThreadCpu {
  mainUser: number;
  mainSystem: number;
  others: number;
}

// /proc reports thread times in clock ticks of USER_HZ, which Linux fixes at 100 a second.
const TICK_US = 10_000;

/** Each thread's [user, system] microseconds, by thread id. */
export type ThreadTimes = Map<string, [number, number]>;

/** Each thread's CPU time so far: a snapshot to pass to `threadCpuSince` later. */
export function threadCpuNow(pid: number): ThreadTimes | undefined {
  let ids: string[];
  try {
    ids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const times: ThreadTimes = new Map();
  for (const tid of ids) {
    try {
      const fields = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      times.set(tid, [Number(fields[11]) * TICK_US, Number(fields[12]) * TICK_US]);
    } catch {
      // the thread ended while the directory was read
    }
  }
  return times;
}

/** What each kind of thread used since `before` (a thread that ended in between is left out). */
export function threadCpuSince(pid: number, before: ThreadTimes | undefined): ThreadCpu | undefined {
  const after = threadCpuNow(pid);
  if (!before || !after) return undefined;
  const used: ThreadCpu = { mainUser: 0, mainSystem: 0, others: 0 };
  for (const [tid, [user, system]] of after) {
    const [user0, system0] = before.get(tid) ?? [0, 0];
    if (tid === String(pid)) {
      used.mainUser = user - user0;
      used.mainSystem = system - system0;
    } else used.others += user - user0 + system - system0;
  }
  return used;
}
