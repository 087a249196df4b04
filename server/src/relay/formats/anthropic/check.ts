import { badRequest } from '../../relay-error.ts';
import { isObj, type Obj } from '../chat/check.ts';

export { isObj, type Obj };

/**
 * Field checks for Anthropic request bodies. Failures read as Anthropic's own 400s do: the dotted path of
 * the field, then what is wrong (`max_tokens: Field required`, `messages.0.content.1.text: Input should be a
 * valid string`).
 */

export const fieldError = (path: string, what: string) =>
  badRequest(`${path}: ${what}`, 'invalid_request', path);

export const required = (path: string) => fieldError(path, 'Field required');

const absent = (v: unknown) => v === undefined || v === null;

/** A required string field (may be empty only when `allowEmpty`). */
export function reqStr(o: Obj, name: string, path: string, allowEmpty = false): string {
  const v = o[name];
  if (absent(v)) throw required(path);
  if (typeof v !== 'string') throw fieldError(path, 'Input should be a valid string');
  if (!allowEmpty && v === '') throw fieldError(path, 'String should have at least 1 character');
  return v;
}

export function optStr(o: Obj, name: string, path: string): string | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw fieldError(path, 'Input should be a valid string');
  return v;
}

export function optBoolean(o: Obj, name: string, path: string): boolean | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'boolean') throw fieldError(path, 'Input should be a valid boolean');
  return v;
}

/** A number within [min, max], or undefined when absent. */
export function optNum(o: Obj, name: string, path: string, min: number, max: number): number | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw fieldError(path, 'Input should be a valid number');
  if (v < min) throw fieldError(path, `Input should be greater than or equal to ${min}`);
  if (v > max) throw fieldError(path, `Input should be less than or equal to ${max}`);
  return v;
}

/** An integer within [min, max], or undefined when absent. */
export function optInteger(o: Obj, name: string, path: string, min: number, max: number): number | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw fieldError(path, 'Input should be a valid integer');
  return optNum(o, name, path, min, max);
}

export function optObject(o: Obj, name: string, path: string): Obj | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (!isObj(v)) throw fieldError(path, 'Input should be a valid dictionary');
  return v;
}

export function optList(o: Obj, name: string, path: string): unknown[] | undefined {
  const v = o[name];
  if (absent(v)) return undefined;
  if (!Array.isArray(v)) throw fieldError(path, 'Input should be a valid list');
  return v;
}

/** `{type:'<tag>', ...}` with a tag from `tags`, as Anthropic's tagged unions check it. */
export function tagOf(v: unknown, path: string, tags: readonly string[]): { o: Obj; tag: string } {
  if (!isObj(v)) throw fieldError(path, 'Input should be a valid dictionary or object');
  const tag = v.type;
  if (typeof tag !== 'string') throw fieldError(`${path}.type`, 'Field required');
  if (!tags.includes(tag))
    throw fieldError(
      path,
      `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${tags.map((t) => `'${t}'`).join(', ')}`,
    );
  return { o: v, tag };
}
