import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';

/**
 * One-time codes sent by e-mail (registration codes, password-reset tokens), valid 10 minutes and consumed
 * by a successful check. Kept in Redis when the context has it (every instance sees them), else in memory.
 */
const VALID_MS = 10 * 60 * 1000;
const memory = new Map<string, { code: string; expires: number }>();
const keyOf = (purpose: string, email: string) => `modelgate:code:${purpose}:${email.trim().toLowerCase()}`;

/** Stores and returns a new code: 6 digits, or 32 hex characters with `long`. */
export async function issueCode(
  ctx: AppContext,
  purpose: string,
  email: string,
  long = false,
): Promise<string> {
  const code = long ? randomBytes(16).toString('hex') : String(randomInt(0, 1_000_000)).padStart(6, '0');
  const key = keyOf(purpose, email);
  if (ctx.redis) {
    await ctx.redis.set(key, code, 'PX', VALID_MS);
  } else {
    const now = Date.now();
    for (const [k, v] of memory) if (v.expires < now) memory.delete(k);
    memory.set(key, { code, expires: now + VALID_MS });
  }
  return code;
}

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** True (and the code is gone) when `code` is the current one for this purpose and address. */
export async function consumeCode(
  ctx: AppContext,
  purpose: string,
  email: string,
  code: string,
): Promise<boolean> {
  const key = keyOf(purpose, email);
  const given = code.trim();
  if (!given) return false;
  if (ctx.redis) {
    const stored = await ctx.redis.get(key);
    if (!stored || !same(stored, given)) return false;
    return (await ctx.redis.del(key)) === 1;
  }
  const entry = memory.get(key);
  if (!entry || entry.expires < Date.now() || !same(entry.code, given)) return false;
  memory.delete(key);
  return true;
}
