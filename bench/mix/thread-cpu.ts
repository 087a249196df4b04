import { readdirSync, readFileSync } from 'node:fs';

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
function perThread(pid: number): Map<string, [number, number]> | undefined {
  let ids: string[];
  try {
    ids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const times = new Map<string, [number, number]>();
  for (const tid of ids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, so it is skipped by its closing parenthesis):
      // state is the first, utime the 12th, stime the 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(tid, [Number(fields[11]) * TICK_US, Number(fields[12]) * TICK_US]);
    } catch {
      // the thread ended while the directory was read
    }
  }
  return times;
}

/** A snapshot to pass to `threadCpuSince` later. */
export const threadCpuNow = perThread;

/** What each kind of thread used since `before` (a thread that ended in between is left out). */
export function threadCpuSince(
  pid: number,
  before: Map<string, [number, number]> | undefined,
): ThreadCpu | undefined {
  const after = perThread(pid);
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
