import type { WorkerAnswer } from '../../../infra/worker-calls.ts';

/** A password to hash, or to check against a stored hash. */
export type Hashing =
  | { op: 'hash'; plain: string; cost: number }
  | { op: 'verify'; plain: string; hash: string };

/** A job as posted to the hashing thread. */
export type HashJob = Hashing & { id: number };

/** The thread's answer: the hash, whether the password matched, or the library's error. */
export type HashAnswer = WorkerAnswer<string | boolean>;
