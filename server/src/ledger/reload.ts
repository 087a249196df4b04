import type { LedgerWriter } from './writer.ts';

/**
 * Reads a row and applies it to cached balances without racing the writer: a flush that commits while the
 * row is being read would make the value count a charge twice or miss it, so the read is repeated until no
 * flush overlapped it, and `apply` runs synchronously right after that check.
 */
export async function readConsistent<T, R>(
  writer: LedgerWriter,
  read: () => Promise<T>,
  apply: (row: T) => R,
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    await writer.idle();
    const epoch = writer.epoch;
    const row = await read();
    if ((writer.epoch === epoch && !writer.busy) || attempt >= 20) return apply(row);
  }
}
