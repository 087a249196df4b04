import { applyMasks, type Hit, type Matcher, scan } from './matchers.ts';

/**
 * Checks a streamed text as it passes. Each push releases what can no longer become part of a match: all but
 * the last `window` characters, less a match still growing at the end (held whole, up to 4 windows), so a card
 * number split across chunks is masked as one. After a blocking hit nothing more is released.
 */
export class StreamMasker {
  private held = '';
  blocked?: Hit;

  constructor(
    private readonly matchers: readonly Matcher[],
    private readonly window: number,
  ) {}

  push(text: string): string {
    if (this.blocked) return '';
    const buf = this.held + text;
    const { hits, block } = scan(buf, this.matchers);
    if (block) return this.block(block);
    let cut = Math.max(0, buf.length - this.window);
    for (const h of hits) if (h.start < cut && h.end > cut) cut = h.end === buf.length ? h.start : h.end;
    cut = Math.max(cut, buf.length - 4 * this.window);
    this.held = buf.slice(cut);
    return applyMasks(buf, hits, 0, cut);
  }

  /** The held text, masked: at the end of the answer or before something that is not text. */
  flush(): string {
    if (this.blocked || !this.held) return '';
    const buf = this.held;
    this.held = '';
    const { hits, block } = scan(buf, this.matchers);
    if (block) return this.block(block);
    return applyMasks(buf, hits);
  }

  private block(hit: Hit): string {
    this.blocked = hit;
    this.held = '';
    return '';
  }
}

/** A whole (non-streamed) text with the mask hits replaced; the blocking hit when one fired. */
export function maskWhole(text: string, matchers: readonly Matcher[]): { text: string; block?: Hit } {
  const { hits, block } = scan(text, matchers);
  return block ? { text, block } : { text: applyMasks(text, hits) };
}
