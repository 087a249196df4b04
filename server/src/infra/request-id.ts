import { randomBytes } from 'node:crypto';

/** Request ids sort by time and are unique per process: yyyyMMddHHmmss + 8 random hex chars. */
export function newRequestId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return stamp + randomBytes(4).toString('hex');
}

export const REQUEST_ID_HEADER = 'x-oneapi-request-id';
