import { LOG_COLUMNS, type LogRow } from './log-insert.ts';

/**
 * Usage log rows as JSON text (each row an array of its values in LOG_COLUMNS order, followed by a comma), in
 * byte chunks: what the ledger writer keeps between two flushes and posts to the SQLite writer thread.
 */
export interface PackedLogs {
  count: number;
  chunks: Uint8Array[];
}

const CHUNK_BYTES = 64 * 1024;
const COMMA = 0x2c;

/**
 * Packs usage log rows as they are settled, outside the JavaScript heap. A row kept as an object until the next
 * flush (up to BATCH_UPDATE_INTERVAL later) outlived two young collections and was promoted: with the batch's
 * serialisation for the writer thread, about two fifths of what the main thread promoted under the mix, so of
 * how often it ran a full collection. Packed, the row's objects die young, and the batch posts as bytes.
 */
export class LogPacker {
  private chunks: Uint8Array[] = [];
  private current: Buffer | undefined;
  private used = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(row: LogRow): void {
    const values = new Array(LOG_COLUMNS.length);
    for (let i = 0; i < LOG_COLUMNS.length; i++) values[i] = row[LOG_COLUMNS[i]];
    const text = JSON.stringify(values);
    // At most 3 UTF-8 bytes per UTF-16 unit: a row never straddles two chunks.
    const room = text.length * 3 + 1;
    if (!this.current || this.used + room > this.current.length) {
      this.seal();
      this.current = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room));
    }
    this.used += this.current.write(text, this.used);
    this.current[this.used++] = COMMA;
    this.count++;
  }

  /** Everything packed so far; the packer starts empty. */
  take(): PackedLogs {
    this.seal();
    const out = { count: this.count, chunks: this.chunks };
    this.chunks = [];
    this.count = 0;
    return out;
  }

  /** Puts back what `take` gave (a write that failed), ahead of what was packed since. */
  putBack(taken: PackedLogs): void {
    this.seal();
    this.chunks = taken.chunks.concat(this.chunks);
    this.count += taken.count;
  }

  private seal(): void {
    if (this.current && this.used > 0) this.chunks.push(this.current.subarray(0, this.used));
    this.current = undefined;
    this.used = 0;
  }
}

export const NO_LOGS: PackedLogs = { count: 0, chunks: [] };

/** The rows of `packed` in the order they were added, each as its values in LOG_COLUMNS order. */
export function unpackLogs(packed: PackedLogs): unknown[][] {
  if (packed.count === 0) return [];
  let text = '';
  for (const c of packed.chunks) text += Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
  return JSON.parse(`[${text.slice(0, -1)}]`) as unknown[][];
}
