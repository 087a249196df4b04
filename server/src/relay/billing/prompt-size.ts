/**
 * How big a prompt is before the call, counted the same way for every client format: an estimate (what it
 * is likely to cost, the admission threshold) and a bound (the most any tokenizer can make of it, what the
 * ledger reserves).
 *
 * Text: every tokenizer in use (byte-level BPE, SentencePiece with byte fallback) emits at most one token per
 * UTF-8 byte, and in practice about one per three or four. Images: providers price an image by its size, with a
 * maximum (OpenAI's largest high-detail image is 1,445 tokens, 2,488 with patch pricing; Claude's about 1,600;
 * Gemini's tiles less); 255 is a typical one. Inline files and audio: at most one token per byte of their base64
 * data; a linked file has no size to read, so it gets a large fixed bound. A few tokens per turn frame the
 * messages.
 */
export interface PromptSize {
  estimate: number;
  bound: number;
}

export const IMAGE_TOKENS_ESTIMATE = 255;
export const IMAGE_TOKENS_BOUND = 2_500;
export const LINKED_FILE_TOKENS_BOUND = 50_000;
const TOKENS_PER_TURN = 3;

/** The most an answer may cost when the client set no limit (the usual output cap of current models). */
export const ANSWER_TOKENS_BOUND = 16_384;

export class PromptMeter {
  private bytes = 0;
  private turns = 0;
  private images = 0;
  private files = 0;
  private fileBound = 0;

  text(bytes: number): this {
    this.bytes += bytes;
    return this;
  }

  turn(n = 1): this {
    this.turns += n;
    return this;
  }

  image(): this {
    this.images++;
    return this;
  }

  /** A file or audio clip: its inline base64 data, or none when it is linked. */
  file(base64?: string): this {
    this.files++;
    this.fileBound += base64 ? base64.length : LINKED_FILE_TOKENS_BOUND;
    return this;
  }

  size(): PromptSize {
    const frame = this.turns > 0 ? TOKENS_PER_TURN * this.turns + TOKENS_PER_TURN : 0;
    return {
      estimate: Math.ceil(this.bytes / 3) + (this.images + this.files) * IMAGE_TOKENS_ESTIMATE + frame,
      bound: this.bytes + this.images * IMAGE_TOKENS_BOUND + this.fileBound + frame,
    };
  }
}

/** A plain text prompt (embeddings, rerank, completions). */
export function textSize(text: string): PromptSize {
  return new PromptMeter().text(Buffer.byteLength(text)).size();
}
