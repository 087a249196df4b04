import { randomFillSync } from 'node:crypto';

// Random bytes are drawn from the OS 4 KiB at a time rather than a few bytes per id (one call per hundreds of ids).
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolAt = POOL_BYTES;

/**
 * `bytes` (at most 4,096) cryptographically random bytes as lower-case hex, for ids that must not collide
 * (request and response ids). Each byte is handed out once.
 */
export function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const from = poolAt;
  poolAt += bytes;
  return pool.toString('hex', from, poolAt);
}
