import { hash, hashSync, verify } from '@node-rs/bcrypt';

const COST = 10;

/**
 * bcrypt in native code (@node-rs/bcrypt, a prebuilt binary from the registry) run on libuv's thread pool: a
 * burst of logins no longer spends the event loop's time (the pure-JavaScript bcryptjs ran every round on the main
 * thread). Same `$2b$` hashes, and `$2a$`/`$2y$` hashes written before still verify.
 */
export const hashPassword = (plain: string) => hash(plain, { cost: COST });

/** Constant work whether or not the user exists, so timing does not reveal valid usernames. */
const DUMMY_HASH = hashSync('not-a-real-password', { cost: COST });
export async function verifyPassword(plain: string, hash: string | undefined): Promise<boolean> {
  // A malformed stored hash (an import's leftovers) is a failed login, not a 500.
  const ok = await verify(plain, hash || DUMMY_HASH).catch(() => false);
  return ok && !!hash;
}
