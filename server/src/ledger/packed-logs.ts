import { LOG_COLUMNS, type LogRow } from './log-insert.ts';

/**
 * Usage log rows in byte chunks, what the ledger writer keeps between two flushes and posts to the SQLite writer
 * thread. A part holds rows packed between two takes: its chunks and the texts its rows share (see LogPacker).
 */
export interface PackedLogs {
  count: number;
  parts: PackedPart[];
}

interface PackedPart {
  chunks: Uint8Array[];
  texts: string[];
}

const CHUNK_BYTES = 64 * 1024;
const COLON = 0x3a;
const NEWLINE = 0x0a;

const OTHER_AT = LOG_COLUMNS.indexOf('other');
/**
 * Columns whose texts repeat from row to row (one per price, user, token, model, group): written as their number
 * in the part's `texts`. The content text is Chinese, so with it inline the whole flush was two-byte text.
 */
const SHARED_AT = ['content', 'username', 'token_name', 'model_name', 'group'].map((c) =>
  LOG_COLUMNS.indexOf(c as keyof LogRow),
);

/**
 * A row's columns in LOG_COLUMNS order but `other` (the last), the shared ones through `id`: read by name, as a
 * loop over the column names would be a megamorphic keyed load per column.
 */
const valuesOf = (r: LogRow, id: (text: unknown) => unknown): unknown[] => [
  r.user_id,
  r.created_at,
  r.type,
  id(r.content),
  id(r.username),
  id(r.token_name),
  r.token_id,
  id(r.model_name),
  r.quota,
  r.cost,
  r.prompt_tokens,
  r.completion_tokens,
  r.use_time,
  r.first_time,
  r.is_stream,
  r.channel_id,
  id(r.group),
  r.ip,
  r.request_id,
];

/**
 * Packs usage log rows as they are settled, outside the JavaScript heap. A row kept as an object until the next
 * flush (up to BATCH_UPDATE_INTERVAL later) outlived two young collections and was promoted: with the batch's
 * serialisation for the writer thread, about two fifths of what the main thread promoted under the mix, so of
 * how often it ran a full collection. Packed, the row's objects die young, and the batch posts as bytes.
 *
 * A row is one line: the length of its `other` text (UTF-16 units; none when it has none), a colon, that text
 * as it is (it is JSON already: written into the row's array it would be escaped quote by quote, and unescaped
 * again in the writer thread), then the other columns as a JSON array, the shared ones as numbers.
 */
export class LogPacker {
  private parts: PackedPart[] = [];
  private chunks: Uint8Array[] = [];
  private texts: string[] = [];
  private textIds = new Map<string, number>();
  private current: Buffer | undefined;
  private used = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(row: LogRow): void {
    const text = JSON.stringify(valuesOf(row, this.textId));
    const other = typeof row.other === 'string' ? row.other : undefined;
    // At most 3 UTF-8 bytes per UTF-16 unit, and the length's digits: a row never straddles two chunks.
    const room = (text.length + (other?.length ?? 0)) * 3 + 24;
    if (!this.current || this.used + room > this.current.length) {
      this.seal();
      this.current = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room));
    }
    const buf = this.current;
    if (other !== undefined) this.used += buf.write(String(other.length), this.used, 'latin1');
    buf[this.used++] = COLON;
    if (other) this.used += buf.write(other, this.used);
    this.used += buf.write(text, this.used);
    buf[this.used++] = NEWLINE;
    this.count++;
  }

  /** Everything packed so far; the packer starts empty. */
  take(): PackedLogs {
    this.seal();
    if (this.chunks.length > 0) this.parts.push({ chunks: this.chunks, texts: this.texts });
    const out = { count: this.count, parts: this.parts };
    this.parts = [];
    this.chunks = [];
    this.texts = [];
    this.textIds = new Map();
    this.count = 0;
    return out;
  }

  /** Puts back what `take` gave (a write that failed), ahead of what was packed since. */
  putBack(taken: PackedLogs): void {
    this.parts = taken.parts.concat(this.parts);
    this.count += taken.count;
  }

  private readonly textId = (text: unknown): unknown => {
    if (typeof text !== 'string') return text;
    let id = this.textIds.get(text);
    if (id === undefined) {
      id = this.texts.push(text) - 1;
      this.textIds.set(text, id);
    }
    return id;
  };

  private seal(): void {
    if (this.current && this.used > 0) this.chunks.push(this.current.subarray(0, this.used));
    this.current = undefined;
    this.used = 0;
  }
}

export const NO_LOGS: PackedLogs = { count: 0, parts: [] };

/** The rows of `packed` in the order they were added, each as its values in LOG_COLUMNS order. */
export function unpackLogs(packed: PackedLogs): unknown[][] {
  const rows: unknown[][] = [];
  for (const { chunks, texts } of packed.parts)
    for (const c of chunks) {
      // Chunk by chunk (rows never straddle two): no string of the whole flush.
      const text = Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
      let at = 0;
      while (at < text.length) {
        const colon = text.indexOf(':', at);
        let from = colon + 1;
        let other: string | null = null;
        if (colon > at) {
          from += Number(text.slice(at, colon));
          other = text.slice(colon + 1, from);
        }
        const end = text.indexOf('\n', from);
        const values = JSON.parse(text.slice(from, end)) as unknown[];
        for (const i of SHARED_AT) if (typeof values[i] === 'number') values[i] = texts[values[i] as number];
        values.splice(OTHER_AT, 0, other);
        rows.push(values);
        at = end + 1;
      }
    }
  return rows;
}
