/** Where a conversation went last: its channel and, on a multi-key channel, the key's position. */
export interface Placement {
  channelId: number;
  keyIndex?: number;
}

interface Entry extends Placement {
  /** Epoch ms after which the entry is forgotten. */
  until: number;
}

/**
 * Conversation affinity: each conversation's turns go to the channel (and key) that answered its last turn,
 * while that one can still take it. Thinking signatures, encrypted reasoning and prompt caches belong to one
 * upstream account; a turn sent elsewhere is refused (`Invalid signature in thinking block`,
 * `invalid_encrypted_content`) or pays for its prompt again. In memory, per instance, least recently used
 * first out; an entry lives `ttlMs` after its last turn.
 */
export class ConversationAffinity {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 60 * 60 * 1000,
    private readonly maxEntries = 100_000,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Where the conversation went last, if it is remembered. */
  get(key: string, now = Date.now()): Placement | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** Records the placement of a turn that was answered. */
  remember(key: string, placement: Placement, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { ...placement, until: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
