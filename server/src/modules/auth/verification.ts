import { randomInt } from 'node:crypto';

/**
 * E-mail verification codes: 6 digits, valid 10 minutes, kept in memory per process (purpose + address).
 * A code is consumed when it is checked successfully.
 */
const VALID_MS = 10 * 60 * 1000;
const codes = new Map<string, { code: string; expires: number }>();

export function issueCode(purpose: string, email: string, now = Date.now()): string {
  for (const [k, v] of codes) if (v.expires < now) codes.delete(k);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  codes.set(`${purpose}:${email.toLowerCase()}`, { code, expires: now + VALID_MS });
  return code;
}

export function consumeCode(purpose: string, email: string, code: string, now = Date.now()): boolean {
  const key = `${purpose}:${email.toLowerCase()}`;
  const entry = codes.get(key);
  if (!entry || entry.expires < now || entry.code !== code.trim()) return false;
  codes.delete(key);
  return true;
}
