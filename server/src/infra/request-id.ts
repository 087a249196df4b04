import { randomHex } from './random-hex.ts';

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
  return stampText + randomHex(4);
}

export const REQUEST_ID_HEADER = 'x-oneapi-request-id';
