import { badRequest } from '../relay-error.ts';

/** Deepest nesting of arrays and objects a relay request body may have; real API requests stay far below. */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests arrays and objects deeper than `max`: one linear scan, brackets inside strings ignored.
 * A string is skipped with `indexOf` to its closing quote (one not escaped by an odd run of backslashes): a
 * request's text is mostly in strings, and the native search is several times faster than a loop per character.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false; // an unterminated string: the parser refuses the text
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let before = at - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((at - 1 - before) % 2 === 0) return at;
  }
}

const invalidJson = () => badRequest('invalid JSON in request body');

/**
 * Whether parsed JSON has a `__proto__` key, or a `constructor` key whose value has a `prototype` key, at any
 * depth: what secure-json-parse (Fastify's parser) refuses. A walk of the parsed values, which are few next to
 * the characters of their text (two text searches cost more than the parse itself on a chat body). Depth is
 * bounded: the text was checked against MAX_JSON_DEPTH before it was parsed.
 */
function holdsPrototypeKey(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsPrototypeKey(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return true;
    if (key === 'constructor' && child && typeof child === 'object' && Object.hasOwn(child, 'prototype'))
      return true;
    if (holdsPrototypeKey(child, depth + 1)) return true;
  }
  return false;
}

/**
 * What a parsed request body came from, so an unedited body goes upstream as the client wrote it: a
 * non-enumerable property, which spreads, Object.assign, structuredClone and JSON.stringify all leave out, so
 * a copy has none. Not a WeakMap: V8's young-generation collector keeps a WeakMap's entries alive, so every
 * request's body text and parsed object were copied into the old generation (about 590 bytes a request).
 */
const SOURCE = Symbol('source');

/**
 * The JSON `body` was parsed from, as the bytes the client sent when the caller passed them (kept outside the
 * JavaScript heap, so the collector does not copy them while the request lasts) or as its text; undefined for
 * objects the relay built or copied.
 */
export const rawJsonOf = (body: object): string | Buffer | undefined =>
  (body as { [SOURCE]?: string | Buffer })[SOURCE];

/**
 * A relay request body as JSON, for the fast lane and the Fastify routes alike: 400 when empty, malformed,
 * nested deeper than MAX_JSON_DEPTH, or carrying prototype keys (refused as Fastify's own parser does).
 * `bytes`: the UTF-8 bytes `text` was decoded from, remembered instead of the text.
 */
export function parseJsonBody(text: string, bytes?: Buffer): unknown {
  if (text === '') throw invalidJson();
  if (nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw badRequest(
      `request body JSON is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      'json_too_deep',
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  if (holdsPrototypeKey(value, 0)) throw invalidJson();
  if (value && typeof value === 'object') Object.defineProperty(value, SOURCE, { value: bytes ?? text });
  return value;
}
