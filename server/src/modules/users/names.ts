import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * Rules that keep names honest: one account per name whatever its case or Unicode form, no name that reads
 * like an administrator's, and no invisible or direction-changing characters in what other people see.
 */

/** The key usernames are unique by: NFKC-normalised and lower-cased ("Alice", "ALICE" and "Ａｌｉｃｅ" are one). */
export const usernameKey = (name: string) => name.normalize('NFKC').toLowerCase();

/**
 * Letters that render like Latin ones (Cyrillic, Greek, digits), mapped to the Latin letter they imitate.
 * A deliberate subset of Unicode's confusables list: the look-alikes of ASCII letters that fonts draw the same.
 */
const LOOKALIKES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  һ: 'h',
  ӏ: 'l',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  '0': 'o',
  '1': 'l',
  '|': 'l',
  '5': 's',
  '@': 'a',
  $: 's',
};

/** What a name looks like: its key with look-alike letters folded, `i` and `l` and `rn`/`m` merged. */
export function nameSkeleton(name: string): string {
  let out = '';
  for (const c of usernameKey(name)) out += LOOKALIKES[c] ?? c;
  return out.replaceAll('rn', 'm').replaceAll('vv', 'w').replaceAll('i', 'l');
}

/** Control characters, bidi overrides and invisible characters. */
function isHidden(c: string): boolean {
  const n = c.codePointAt(0) ?? 0;
  if (n < 0x20 || (n >= 0x7f && n <= 0x9f)) return true; // C0, DEL, C1
  if (n >= 0x200b && n <= 0x200f) return true; // zero-width, LRM/RLM
  if (n >= 0x202a && n <= 0x202e) return true; // bidi embeddings and overrides
  if (n >= 0x2060 && n <= 0x2069) return true; // word joiner, invisible operators, bidi isolates
  return n === 0xfeff || n === 0x00ad || n === 0x180e; // BOM, soft hyphen, Mongolian separator
}

/** True when the text holds control characters, bidi overrides or invisible characters. */
export function hasHiddenCharacters(text: string): boolean {
  for (const c of text) if (isHidden(c)) return true;
  return false;
}

/** The text without the characters hasHiddenCharacters finds (for names the console would refuse). */
export function withoutHiddenCharacters(text: string): string {
  let out = '';
  for (const c of text) if (!isHidden(c)) out += c;
  return out;
}

/**
 * Whether `name` reads like the name of an administrator or root without being that very account
 * (`exceptId` is the account being renamed).
 */
export async function impersonatesAdmin(db: Kysely<Database>, name: string, exceptId = 0): Promise<boolean> {
  const admins = await db.selectFrom('users').select(['id', 'username']).where('role', '>=', 10).execute();
  const skeleton = nameSkeleton(name);
  return admins.some((a) => Number(a.id) !== exceptId && nameSkeleton(a.username) === skeleton);
}

export const IMPERSONATION = "this username looks like an administrator's; choose another";
