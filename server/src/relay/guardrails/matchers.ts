import { DETECTORS, MASK_OF, type Span } from './pii.ts';
import type { GuardrailPolicy, GuardrailRule, RuleMode } from './policy.ts';

/** A span a rule found, with what it becomes when masked. */
export interface Hit extends Span {
  rule: string;
  mode: RuleMode;
  replacement: string;
}

/** A text rule ready to run: finds its hits in a text. */
export interface Matcher {
  rule: string;
  mode: RuleMode;
  find(text: string): Hit[];
}

/** Where the sensitive words come from (the SensitiveWords option, lower case). */
export type WordList = () => readonly string[];

function wordHits(text: string, words: readonly string[], rule: string, mode: RuleMode): Hit[] {
  if (!words.length || !text) return [];
  const lower = text.toLowerCase();
  const out: Hit[] = [];
  for (const w of words)
    for (let at = lower.indexOf(w); at >= 0; at = lower.indexOf(w, at + w.length))
      out.push({ start: at, end: at + w.length, rule, mode, replacement: '*'.repeat(w.length) });
  return out;
}

function compile(rule: GuardrailRule, words: WordList): Matcher | undefined {
  const { id, mode } = rule;
  switch (rule.type) {
    case 'words':
      return { rule: id, mode, find: (text) => wordHits(text, words(), id, mode) };
    case 'regex': {
      const re = new RegExp(rule.pattern, `${rule.flags}g`);
      return {
        rule: id,
        mode,
        find(text) {
          const out: Hit[] = [];
          re.lastIndex = 0;
          for (let m = re.exec(text); m; m = re.exec(text)) {
            if (m[0].length === 0) {
              re.lastIndex++;
              continue;
            }
            out.push({
              start: m.index,
              end: m.index + m[0].length,
              rule: id,
              mode,
              replacement: rule.replacement,
            });
          }
          return out;
        },
      };
    }
    case 'pii':
      return {
        rule: id,
        mode,
        find: (text) =>
          rule.detectors.flatMap((kind) =>
            DETECTORS[kind](text).map((s) => ({ ...s, rule: id, mode, replacement: MASK_OF[kind] })),
          ),
      };
    default:
      return undefined;
  }
}

/** The text rules of a policy that read one side (moderation is not a text rule). */
export function matchersFor(policy: GuardrailPolicy, side: 'prompt' | 'answer', words: WordList): Matcher[] {
  const out: Matcher[] = [];
  for (const r of policy.rules) {
    if (r.on !== side && r.on !== 'both') continue;
    const m = compile(r, words);
    if (m) out.push(m);
  }
  return out;
}

/**
 * Every hit of the matchers in `text`, sorted and without overlaps (the earlier, then longer, wins), and the
 * first blocking hit if any.
 */
export function scan(text: string, matchers: readonly Matcher[]): { hits: Hit[]; block?: Hit } {
  const all: Hit[] = [];
  for (const m of matchers) for (const h of m.find(text)) all.push(h);
  all.sort((a, b) => a.start - b.start || b.end - a.end);
  const hits: Hit[] = [];
  let block: Hit | undefined;
  for (const h of all) {
    if (h.mode === 'block' && !block) block = h;
    const last = hits[hits.length - 1];
    if (last && h.start < last.end) continue;
    hits.push(h);
  }
  return { hits, block };
}

/** `text[from, to)` with the hits inside it replaced (hits sorted, not overlapping, offsets in `text`). */
export function applyMasks(text: string, hits: readonly Hit[], from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const h of hits) {
    if (h.start < from || h.end > to) continue;
    out += text.slice(at, h.start) + h.replacement;
    at = h.end;
  }
  return out + text.slice(at, to);
}
