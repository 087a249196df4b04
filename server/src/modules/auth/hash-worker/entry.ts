import { parentPort } from 'node:worker_threads';
import { hashSync, verifySync } from '@node-rs/bcrypt';
import { lowerThisThreadPriority } from '../../../infra/os/thread-priority.ts';
import type { HashAnswer, HashJob } from './protocol.ts';

/*
 * The password hashing thread: bcrypt in native code, one job at a time, at a lower scheduling priority than the
 * event loop, so a burst of logins that shares a core with the relay runs after the relay's requests instead of
 * in their place (libuv's thread pool, where @node-rs/bcrypt's async calls ran, has no priority of its own).
 */
const port = parentPort;
if (!port) throw new Error('the password hashing thread runs as a worker');
lowerThisThreadPriority();

port.on('message', (job: HashJob) => {
  let answer: HashAnswer;
  try {
    const value =
      job.op === 'hash' ? hashSync(job.plain, { cost: job.cost }) : verifySync(job.plain, job.hash);
    answer = { id: job.id, ok: true, value };
  } catch (err) {
    answer = { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
