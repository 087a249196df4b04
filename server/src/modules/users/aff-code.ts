import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const randomCode = (length: number) =>
  Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/** A referral code (4 letters or digits) that no user holds yet; longer if 4 characters keep colliding. */
export async function freshAffCode(db: Kysely<Database>): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const code = randomCode(attempt < 8 ? 4 : 8);
    const taken = await db.selectFrom('users').select('id').where('aff_code', '=', code).executeTakeFirst();
    if (!taken) return code;
  }
}
