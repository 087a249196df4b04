import { type CacheEntry, type CacheStore, entryBytes } from './entry.ts';

interface Slot {
  entry: CacheEntry;
  bytes: number;
  expiresAt: number;
}

/**
 * Entries in this process: a Map kept in least-recently-used order (a hit moves its entry to the end), with the
 * total size held under the cap by dropping from the front. Every operation is synchronous, so concurrent
 * requests never see a half-made entry.
 */
export class MemoryCacheStore implements CacheStore {
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    if (slot.expiresAt <= this.now()) {
      this.bytes -= slot.bytes;
      return undefined;
    }
    this.slots.set(key, slot);
    return slot.entry;
  }

  async set(key: string, entry: CacheEntry, ttlMs: number, maxBytes: number): Promise<void> {
    const bytes = entryBytes(key, entry);
    this.drop(key);
    if (bytes > maxBytes) return;
    this.slots.set(key, { entry, bytes, expiresAt: this.now() + ttlMs });
    this.bytes += bytes;
    for (const oldest of this.slots.keys()) {
      if (this.bytes <= maxBytes) break;
      this.drop(oldest);
    }
  }

  /** Bytes held now (for tests and the size cap). */
  get size(): number {
    return this.bytes;
  }

  private drop(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.bytes -= slot.bytes;
  }
}
