import { readdirSync, readFileSync } from 'node:fs';

/** Each thread of this process (Linux) by its nice value: field 19 of /proc/<pid>/task/<tid>/stat. */
export const threadNiceValues = (): Map<number, number> =>
  new Map(
    readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
    }),
  );
