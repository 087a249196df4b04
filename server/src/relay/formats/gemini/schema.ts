import { isObj, type Obj } from './check.ts';

/**
 * Tool and response schemas between JSON Schema (the hub's) and Gemini's Schema (an OpenAPI 3.0 subset:
 * upper- or lower-case `type`, `nullable`, string-only `enum`, no `$ref`).
 *
 * Upstream side: tool parameters go as `parameters` in Gemini's Schema, cleaned, rather than as
 * `parametersJsonSchema`: every Gemini model, Vertex and the Gemini-compatible servers take `parameters`,
 * while `parametersJsonSchema` is new and refused by older models. Cleaning keeps only what Gemini's Schema
 * knows, and Gemini fails the whole request on anything else (`Unknown name "exclusiveMinimum"`).
 */

const MAX_DEPTH = 32;

/** Gemini Schema (as `parameters` or `responseSchema`) as JSON Schema: lower-case types, nullable as a type. */
export function fromGeminiSchema(s: unknown, depth = 0): unknown {
  if (Array.isArray(s)) return s.map((x) => fromGeminiSchema(x, depth + 1));
  if (!isObj(s) || depth > MAX_DEPTH) return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable' || k === 'propertyOrdering' || k === 'property_ordering' || k === 'example')
      continue;
    if (k === 'type') {
      if (typeof v !== 'string' || v.toUpperCase() === 'TYPE_UNSPECIFIED') continue;
      out.type = v.toLowerCase();
    } else if (k === 'properties' && isObj(v))
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, p]) => [name, fromGeminiSchema(p, depth + 1)]),
      );
    else if (k === 'items' || k === 'anyOf' || k === 'any_of')
      out[k === 'any_of' ? 'anyOf' : k] = fromGeminiSchema(v, depth + 1);
    else out[k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = v;
  }
  if (s.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** Formats Gemini's Schema accepts, by type; any other format is refused, so it is dropped. */
const FORMATS: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

const KEEP = new Set([
  'description',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minProperties',
  'maxProperties',
]);

/** The definitions `$ref`s may point at (`#/$defs/x`, `#/definitions/x`). */
type Defs = Map<string, unknown>;

function defsOf(root: Obj): Defs {
  const defs: Defs = new Map();
  for (const key of ['$defs', 'definitions'])
    if (isObj(root[key]))
      for (const [name, d] of Object.entries(root[key] as Obj)) defs.set(`#/${key}/${name}`, d);
  return defs;
}

/**
 * A JSON Schema as Gemini's Schema: `$ref`s inlined (a recursive one becomes an untyped object), `const` as a
 * one-value enum, exclusive bounds as inclusive ones, type lists as `nullable` or `anyOf`, `oneOf` as `anyOf`,
 * `allOf` merged; `$schema`, `additionalProperties`, `propertyNames`, `patternProperties`, `uniqueItems`,
 * `default`, `examples`, `title` and every other keyword Gemini does not know dropped. Enums must be strings.
 */
export function toGeminiSchema(schema: unknown): Obj {
  if (!isObj(schema)) return { type: 'object' };
  return clean(schema, defsOf(schema), [], 0);
}

function clean(s: Obj, defs: Defs, refs: string[], depth: number): Obj {
  if (depth > MAX_DEPTH) return {};
  const ref = s.$ref;
  if (typeof ref === 'string') {
    const target = defs.get(ref);
    if (!isObj(target) || refs.includes(ref)) return { type: 'object' };
    const { $ref: _, ...rest } = s;
    return clean({ ...target, ...rest }, defs, [...refs, ref], depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    const merged: Obj = { ...s, allOf: undefined };
    for (const part of s.allOf) if (isObj(part)) mergeInto(merged, part);
    return clean(merged, defs, refs, depth + 1);
  }
  const out: Obj = {};
  let nullable = s.nullable === true;
  let type = s.type;
  if (Array.isArray(type)) {
    nullable ||= type.includes('null');
    const types = type.filter((t): t is string => typeof t === 'string' && t !== 'null');
    if (types.length > 1) {
      const anyOf = types.map((t) => clean({ ...s, type: t, nullable: false }, defs, refs, depth + 1));
      return nullable ? { anyOf, nullable: true } : { anyOf };
    }
    type = types[0];
  }
  if (type === 'null') {
    type = undefined;
    nullable = true;
  }
  const t = typeof type === 'string' ? type.toLowerCase() : undefined;
  if (t) out.type = t;
  if (typeof s.format === 'string' && t && FORMATS[t]?.has(s.format)) out.format = s.format;
  for (const k of KEEP) if (s[k] !== undefined && s[k] !== null) out[k] = s[k];
  if (typeof s.exclusiveMinimum === 'number') out.minimum = s.exclusiveMinimum;
  if (typeof s.exclusiveMaximum === 'number') out.maximum = s.exclusiveMaximum;
  const values = s.const !== undefined ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined;
  if (values) {
    const strings = values.filter((v) => v !== null);
    if (values.includes(null)) nullable = true;
    if (strings.length && strings.every((v) => typeof v === 'string')) {
      out.enum = strings;
      if (!out.type) out.type = 'string';
    }
  }
  if (isObj(s.properties)) {
    const props = Object.entries(s.properties).filter(([, p]) => isObj(p) || p === true);
    if (props.length) {
      out.properties = Object.fromEntries(
        props.map(([name, p]) => [name, isObj(p) ? clean(p, defs, refs, depth + 1) : {}]),
      );
      if (Array.isArray(s.required)) {
        const names = new Set(props.map(([n]) => n));
        const required = s.required.filter((r) => typeof r === 'string' && names.has(r));
        if (required.length) out.required = required;
      }
    }
    if (!out.type) out.type = 'object';
  }
  if (isObj(s.items)) out.items = clean(s.items, defs, refs, depth + 1);
  else if (Array.isArray(s.items) && isObj(s.items[0])) out.items = clean(s.items[0], defs, refs, depth + 1);
  else if (Array.isArray(s.prefixItems) && isObj(s.prefixItems[0]))
    out.items = clean(s.prefixItems[0], defs, refs, depth + 1);
  if (out.type === 'array' && !out.items) out.items = { type: 'string' };
  const alternatives = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (alternatives) {
    const kept = alternatives.filter(isObj);
    const nonNull = kept.filter((a) => a.type !== 'null');
    if (nonNull.length < kept.length) nullable = true;
    if (nonNull.length === 1 && !out.type) Object.assign(out, clean(nonNull[0], defs, refs, depth + 1));
    else if (nonNull.length) out.anyOf = nonNull.map((a) => clean(a, defs, refs, depth + 1));
  }
  if (nullable) out.nullable = true;
  return out;
}

/** allOf: properties and required lists merged, other keywords taken when not already set. */
function mergeInto(into: Obj, part: Obj) {
  for (const [k, v] of Object.entries(part)) {
    if (k === 'properties' && isObj(v))
      into.properties = { ...(isObj(into.properties) ? into.properties : {}), ...v };
    else if (k === 'required' && Array.isArray(v))
      into.required = [...(Array.isArray(into.required) ? into.required : []), ...v];
    else if (into[k] === undefined) into[k] = v;
  }
}

/** Tool parameters for Gemini: a schema with no properties is left out (Gemini refuses an empty OBJECT). */
export function geminiParameters(schema: Record<string, unknown>): Obj | undefined {
  const s = toGeminiSchema(schema);
  if (s.type === 'object' && !isObj(s.properties) && !s.anyOf) return undefined;
  return s;
}
