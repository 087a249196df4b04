import type { AppContext } from '../../../context.ts';
import { RelayError } from '../../relay-error.ts';

/**
 * Sensitive-word check on the prompt (CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled, words from
 * SensitiveWords, one per line). Case-insensitive substring match over every text the client sends: chat
 * messages (string or text parts), system prompts, completion prompts, embedding/moderation/speech input,
 * Gemini parts and Responses instructions. Images and other binary parts are not inspected.
 */
export interface SensitiveCheck {
  /** Throws a 400 RelayError when the request's text contains a listed word. */
  check(body: unknown): void;
  /** The first listed word found in the text, or undefined. */
  find(text: string): string | undefined;
  /** The listed words, lower case (the guardrails' word-list rule reads them). */
  words(): readonly string[];
}

const escaped = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The one character whose lower case is two (U+0130, dotted capital I, lowers to "i" and U+0307). */
const DOTTED_I = '\u0130';

export function createSensitiveCheck(ctx: AppContext): SensitiveCheck {
  let words: string[] = [];
  /** Any listed word, in any case (Unicode case folding), in one scan without a lower-case copy of the text. */
  let anyWord: RegExp | null = null;
  const load = () => {
    words = [
      ...new Set(
        ctx.options
          .get('SensitiveWords')
          .split(/\r?\n/)
          .map((w) => w.trim().toLowerCase())
          .filter(Boolean),
      ),
    ];
    anyWord = words.length ? new RegExp(words.map(escaped).join('|'), 'iu') : null;
  };
  load();
  ctx.options.onChange((key) => {
    if (key === 'SensitiveWords') load();
  });

  /**
   * Whether the text may hold a listed word: where the lower-case copy matches a word, case folding matches it
   * too, but for U+0130, whose lower case is two characters; a text holding it is compared the long way.
   */
  const mayHold = (text: string) => !!anyWord?.test(text) || text.includes(DOTTED_I);
  const find = (text: string) => {
    if (!words.length || !text || !mayHold(text)) return undefined;
    const lower = text.toLowerCase();
    return words.find((w) => lower.includes(w));
  };

  return {
    find,
    words: () => words,
    check(body) {
      if (!ctx.options.bool('CheckSensitiveEnabled') || !ctx.options.bool('CheckSensitiveOnPromptEnabled'))
        return;
      if (!words.length) return;
      const texts: string[] = [];
      collectPromptText(body, texts);
      // Text by text: a word holds no line break, so none spans two texts.
      if (texts.some((t) => find(t) !== undefined)) {
        throw new RelayError(
          400,
          'sensitive words detected in the request',
          'invalid_request_error',
          'sensitive_words_detected',
        );
      }
    },
  };
}

/** Pushes every piece of prompt text of an OpenAI, Anthropic or Gemini request body into `out`. */
export function collectPromptText(body: unknown, out: string[]): void {
  if (!body || typeof body !== 'object') return;
  const b = body as Record<string, unknown>;
  for (const key of ['prompt', 'input', 'instructions', 'system', 'query']) addContent(b[key], out);
  if (Array.isArray(b.messages))
    for (const m of b.messages)
      if (m && typeof m === 'object') addContent((m as { content?: unknown }).content, out);
  if (Array.isArray(b.contents))
    for (const c of b.contents)
      if (c && typeof c === 'object') addContent((c as { parts?: unknown }).parts, out);
  if (b.systemInstruction && typeof b.systemInstruction === 'object')
    addContent((b.systemInstruction as { parts?: unknown }).parts, out);
  if (Array.isArray(b.documents)) addContent(b.documents, out);
}

/** A content value: a string, a list of strings, or a list of parts with `text` (images are skipped). */
function addContent(value: unknown, out: string[]): void {
  // An explicit stack, in order: parts may nest `content` lists to any depth the client sends.
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const part = v[i];
        if (typeof part === 'string') stack.push(part);
        else if (part && typeof part === 'object' && !Array.isArray(part)) {
          const p = part as { text?: unknown; content?: unknown };
          if (typeof p.text === 'string') stack.push(p.text);
          // Responses API input items carry their own content list.
          else if (p.content !== undefined) stack.push(p.content);
        }
      }
    }
  }
}
