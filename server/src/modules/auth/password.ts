import { hashSync } from '@node-rs/bcrypt';
import { hashThread } from './hash-worker/thread.ts';

const COST = 10;

/**
 * bcrypt in native code (@node-rs/bcrypt, a prebuilt binary from the registry) on a thread of its own at a lower
 * scheduling priority than the event loop (hash-worker/): a burst of logins spends neither the event loop's time
 * nor, where they share a core, the relay's. Same `$2b$` hashes, and `$2a$`/`$2y$` hashes written before still
 * verify.
 */
export const hashPassword = (plain: string) =>
  hashThread.run({ op: 'hash', plain, cost: COST }) as Promise<string>;

/** Constant work whether or not the user exists, so timing does not reveal valid usernames. */
const DUMMY_HASH = hashSync('not-a-real-password', { cost: COST });
export async function verifyPassword(plain: string, hash: string | undefined): Promise<boolean> {
  // A malformed stored hash (an import's leftovers) is a failed login, not a 500.
  const ok = await hashThread.run({ op: 'verify', plain, hash: hash || DUMMY_HASH }).catch(() => false);
  return ok === true && !!hash;
}
