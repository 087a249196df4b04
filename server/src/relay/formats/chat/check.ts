import { badRequest } from '../../relay-error.ts';

/** Type checks for request fields; each failure is the 400 OpenAI's own server would give. */

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const absent = (v: unknown) => v === undefined || v === null;

export const invalid = (param: string, what: string) =>
  badRequest(`Invalid value for '${param}': ${what}.`, 'invalid_value', param);

/** A number field within [min, max], or undefined when absent. */
export function optNumber(body: Obj, name: string, min: number, max: number): number | undefined {
  const v = body[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw invalid(name, `expected a number from ${min} to ${max}`);
  return v;
}

/** An integer field within [min, max], or undefined when absent. */
export function optInt(body: Obj, name: string, min: number, max: number): number | undefined {
  const v = optNumber(body, name, min, max);
  if (v !== undefined && !Number.isInteger(v)) throw invalid(name, 'expected an integer');
  return v;
}

export function optString(body: Obj, name: string): string | undefined {
  const v = body[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw invalid(name, 'expected a string');
  return v;
}

export function optBool(body: Obj, name: string): boolean | undefined {
  const v = body[name];
  if (absent(v)) return undefined;
  if (typeof v !== 'boolean') throw invalid(name, 'expected a boolean');
  return v;
}

/** An object field, or undefined when absent. */
export function optObj(body: Obj, name: string, param = name): Obj | undefined {
  const v = body[name];
  if (absent(v)) return undefined;
  if (!isObj(v)) throw invalid(param, 'expected an object');
  return v;
}

/** A required non-empty string field. */
export function reqString(body: Obj, name: string, param: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v === '')
    throw badRequest(`Missing required parameter: '${param}'.`, 'missing_required_parameter', param);
  return v;
}
