import { badRequest } from '../../relay-error.ts';
import { isBase64 } from '../common.ts';

/**
 * Field access and type checks for Gemini request bodies. Google's JSON mapping accepts every field under its
 * camelCase name and its proto (snake_case) name, so both are read; failures are the 400s Google's own
 * server gives, in its wording (paths in snake_case, as Google prints them).
 */

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const absent = (v: unknown) => v === undefined || v === null;

const snakeNames = new Map<string, string>();

/**
 * camelCase -> snake_case (`inlineData` -> `inline_data`). Names are the code's own field names, a small fixed
 * set, so each is converted once: `field` asks for the snake name of every field a request leaves out.
 */
export function snake(name: string): string {
  let out = snakeNames.get(name);
  if (out === undefined) {
    out = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeNames.set(name, out);
  }
  return out;
}

/** A field under its camelCase name, else its snake_case one. */
export function field(o: Obj, name: string): unknown {
  const v = o[name];
  return v !== undefined ? v : o[snake(name)];
}

/** `at` joined with a field name the way Google prints paths. */
export const join = (at: string, name: string) => (at ? `${at}.${snake(name)}` : snake(name));

/** A short rendering of a bad value for an error message. */
function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);
}

/** Google's wording for a value of the wrong type: `Invalid value at 'x' (TYPE_FLOAT), "hot"`. */
export const invalidValue = (at: string, type: string, v: unknown) =>
  badRequest(`Invalid value at '${at}' (${type}), ${shown(v)}`, 'invalid_argument', at);

/** Google's wording for a field-level rule: `* GenerateContentRequest.x: message`. */
export const ruleError = (at: string, message: string) =>
  badRequest(`* GenerateContentRequest.${at}: ${message}`, 'invalid_argument', at);

export function optNumber(o: Obj, name: string, at: string, min: number, max: number): number | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalidValue(join(at, name), 'TYPE_FLOAT', v);
  if (v < min || v > max)
    throw ruleError(join(at, name), `${snake(name)} must be in the range [${min}, ${max}].`);
  return v;
}

export function optInt(o: Obj, name: string, at: string, min: number, max: number): number | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  // Google's JSON mapping takes int64 values as strings too.
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalidValue(join(at, name), 'TYPE_INT32', v);
  if (n < min || n > max)
    throw ruleError(join(at, name), `${snake(name)} must be in the range [${min}, ${max}].`);
  return n;
}

export function optString(o: Obj, name: string, at: string): string | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw invalidValue(join(at, name), 'TYPE_STRING', v);
  return v;
}

export function optBool(o: Obj, name: string, at: string): boolean | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  if (typeof v !== 'boolean') throw invalidValue(join(at, name), 'TYPE_BOOL', v);
  return v;
}

/** A message (object) field, or undefined when absent. */
export function optObj(o: Obj, name: string, at: string, type: string): Obj | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  if (!isObj(v)) throw invalidValue(join(at, name), type, v);
  return v;
}

/** A repeated field, or [] when absent. */
export function optList(o: Obj, name: string, at: string, type: string): unknown[] {
  const v = field(o, name);
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalidValue(join(at, name), type, v);
  return v;
}

/** An enum field, compared case-insensitively (Google's parser does), as its upper-case name. */
export function optEnum(
  o: Obj,
  name: string,
  at: string,
  type: string,
  values: string[],
): string | undefined {
  const v = field(o, name);
  if (absent(v)) return undefined;
  const upper = typeof v === 'string' ? v.toUpperCase() : '';
  if (!values.includes(upper)) throw invalidValue(join(at, name), type, v);
  return upper;
}

/** Inline bytes: standard or web-safe base64 (Google takes both). */
export function base64(v: unknown, at: string): string {
  if (typeof v !== 'string' || !isBase64(v))
    throw badRequest(
      `Invalid value at '${at}' (TYPE_BYTES), Base64 decoding failed for ${shown(v)}`,
      'invalid_argument',
      at,
    );
  return v.replace(/\s+/g, '');
}
