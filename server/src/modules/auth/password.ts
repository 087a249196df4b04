import bcrypt from 'bcryptjs';

const COST = 10;

export const hashPassword = (plain: string) => bcrypt.hash(plain, COST);

/** Constant work whether or not the user exists, so timing does not reveal valid usernames. */
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', COST);
export async function verifyPassword(plain: string, hash: string | undefined): Promise<boolean> {
  const ok = await bcrypt.compare(plain, hash || DUMMY_HASH);
  return ok && !!hash;
}
