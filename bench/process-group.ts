import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';

/** One process of a group, as /proc shows it. */
export interface GroupProcess {
  pid: number;
  /** The executable's file name (`node`, `sh`, `esbuild`). */
  exe: string;
  cmdline: string;
  rssKb: number;
  pssKb: number;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process ended between listing and reading
  }
};

/**
 * The fields of a /proc `stat` line after the command name, which may hold spaces and parentheses and so is skipped
 * by its last closing parenthesis: [0] state, [1] ppid, [2] pgrp, ... [11] utime, [12] stime (clock ticks).
 */
export const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

const field = (text: string, name: string) =>
  Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);

/** The live processes of process group `pgid` (Linux /proc only), with their resident and proportional sizes. */
export function groupProcesses(pgid: number): GroupProcess[] {
  const out: GroupProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (Number(statFields(read(`/proc/${name}/stat`))[2]) !== pgid) continue;
    let exe = '';
    try {
      exe = readlinkSync(`/proc/${name}/exe`).split('/').pop() ?? '';
    } catch {
      continue;
    }
    const rollup = read(`/proc/${name}/smaps_rollup`);
    out.push({
      pid: Number(name),
      exe,
      cmdline: read(`/proc/${name}/cmdline`).split('\0').join(' ').trim(),
      rssKb: field(rollup, 'Rss'),
      pssKb: field(rollup, 'Pss'),
    });
  }
  return out;
}

const PAGE_KB = 4;
const PRESENT = 1n << 63n;
const PFN_MASK = (1n << 55n) - 1n;

/**
 * Resident memory of several processes with every physical page counted once (what the group occupies; summed
 * RSS counts the node binary's pages once per node process). Reads physical page numbers from
 * /proc/<pid>/pagemap, which needs root; undefined without.
 */
export function uniqueResidentKb(pids: number[]): number | undefined {
  const pages = new Set<bigint>();
  let sawPfn = false;
  for (const pid of pids) {
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/pagemap`, 'r');
    } catch {
      continue;
    }
    try {
      // Only mappings with resident pages: node reserves tens of gigabytes of address space it never touches.
      let start = 0;
      let end = 0;
      for (const line of read(`/proc/${pid}/smaps`).split('\n')) {
        const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
        if (range) {
          start = Number.parseInt(range[1], 16) / 4096;
          end = Number.parseInt(range[2], 16) / 4096;
          continue;
        }
        if (!line.startsWith('Rss:') || field(line, 'Rss') === 0) continue;
        const buf = Buffer.alloc((end - start) * 8);
        const got = readSync(fd, buf, 0, buf.length, start * 8);
        for (let off = 0; off + 8 <= got; off += 8) {
          const entry = buf.readBigUInt64LE(off);
          if (!(entry & PRESENT)) continue;
          const pfn = entry & PFN_MASK;
          if (pfn) sawPfn = true;
          pages.add(pfn);
        }
      }
    } catch {
      // the process ended while being read
    } finally {
      closeSync(fd);
    }
  }
  return sawPfn ? pages.size * PAGE_KB : undefined;
}

export interface GroupPeak {
  /** Summed RSS of the group's processes. */
  rssKb: number;
  /** Summed PSS (shared pages split between the processes sharing them, here and elsewhere). */
  pssKb: number;
  /** Pages counted once (undefined when /proc/<pid>/pagemap gives no page numbers). */
  uniqueKb?: number;
  /** The processes when the summed RSS peaked. */
  processes: GroupProcess[];
}

/** Samples a process group's memory every `everyMs` until stopped; keeps the peaks. */
export function sampleGroup(pgid: number, everyMs = 100) {
  const peak: GroupPeak = { rssKb: 0, pssKb: 0, processes: [] };
  const tick = () => {
    const procs = groupProcesses(pgid);
    const rss = procs.reduce((s, p) => s + p.rssKb, 0);
    const pss = procs.reduce((s, p) => s + p.pssKb, 0);
    if (rss > peak.rssKb) {
      peak.rssKb = rss;
      peak.processes = procs;
    }
    peak.pssKb = Math.max(peak.pssKb, pss);
    const unique = uniqueResidentKb(procs.map((p) => p.pid));
    if (unique !== undefined) peak.uniqueKb = Math.max(peak.uniqueKb ?? 0, unique);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    peak,
    stop() {
      clearInterval(timer);
      tick();
      return peak;
    },
  };
}
