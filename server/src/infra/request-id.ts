import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
// Random bytes are drawn 4 KiB at a time (one syscall per 1024 ids) rather than 4 bytes per request.
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;
// The yyyyMMddHHmmss prefix changes once a second: keep the last one.
let stampSecond = -1;
let stampText = '';

const p = (n: number, w = 2) => String(n).padStart(w, '0');

/** Request ids sort by time and are unique per process: yyyyMMddHHmmss + 8 random hex chars. */
export function newRequestId(now = new Date()): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stampText = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  }
  if (poolAt + 4 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const i = poolAt;
  poolAt += 4;
  return stampText + HEX[pool[i]] + HEX[pool[i + 1]] + HEX[pool[i + 2]] + HEX[pool[i + 3]];
}

export const REQUEST_ID_HEADER = 'x-oneapi-request-id';
