import type { Usage } from '../billing/quota.ts';

/** One cached answer: the bytes the caller's format wrote, and what producing them took. */
export interface CacheEntry {
  contentType: string;
  body: string;
  /** The usage the answer was billed for when it was produced: what a hit saves. */
  usage: Usage;
  /** Unix ms when it was stored. */
  storedAt: number;
}

/** An entry's size as the size cap counts it. */
export const entryBytes = (key: string, e: CacheEntry) =>
  Buffer.byteLength(e.body) + e.contentType.length + key.length + 128;

export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores an entry for `ttlMs`, evicting the least recently stored or used ones beyond `maxBytes`. */
  set(key: string, entry: CacheEntry, ttlMs: number, maxBytes: number): Promise<void>;
}
