import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpuNow, threadCpuSince } from '../../bench/mix/thread-cpu.ts';

// A fixed amount of work: at least this much CPU whatever the machine's speed or load (about 0.4 s here).
const BURN = `let x = 0; for (let i = 0; i < 1.2e8; i++) x += Math.sqrt(i); globalThis.burnt = x;`;
const burn = new Function(BURN) as () => void;

/** bench:mix's CPU split by thread (Linux's /proc): the work of a worker thread and of the main thread land apart. */
describe.skipIf(!existsSync('/proc/self/task'))('bench thread CPU', () => {
  it('counts a worker thread among the others and the main thread apart', async () => {
    const pid = process.pid;
    const before = threadCpuNow(pid);
    // The worker stays alive until asked to end: a thread that ended before the reading is not counted.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads'); ${BURN} parentPort.postMessage('done'); parentPort.once('message', () => process.exit(0));`,
      { eval: true },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    const afterWorker = threadCpuSince(pid, before);
    worker.postMessage('end');
    await new Promise((resolve) => worker.once('exit', resolve));

    const mainBefore = threadCpuNow(pid);
    burn();
    const afterMain = threadCpuSince(pid, mainBefore);

    expect(afterWorker?.others).toBeGreaterThanOrEqual(80_000);
    expect(afterMain?.mainUser).toBeGreaterThanOrEqual(80_000);
    // The worker's work is not the main thread's: the main thread waited for it.
    expect(afterWorker?.mainUser).toBeLessThan(afterWorker?.others ?? 0);
  });

  it('reads nothing for a process that is not there', () => {
    expect(threadCpuNow(2 ** 30)).toBeUndefined();
    expect(threadCpuSince(process.pid, undefined)).toBeUndefined();
  });
});
