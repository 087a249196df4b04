/** A password to hash, or to check against a stored hash, posted to the hashing thread. */
export type HashJob =
  | { id: number; op: 'hash'; plain: string; cost: number }
  | { id: number; op: 'verify'; plain: string; hash: string };

/** The thread's answer: the hash, whether the password matched, or the library's error. */
export type HashAnswer =
  | { id: number; ok: true; value: string | boolean }
  | { id: number; ok: false; message: string };
