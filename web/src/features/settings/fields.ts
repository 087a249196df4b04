import type { OptionMap } from './api.ts';

/**
 * How one option is edited. Values travel as strings (booleans "true"/"false"); the form holds typed values.
 * `secret`: a password field that starts blank (the server never sends secrets) and is only sent when filled.
 */
export type FieldKind = 'switch' | 'text' | 'secret' | 'number' | 'textarea' | 'json' | 'select' | 'tags';

export interface FieldDef {
  key: string;
  kind: FieldKind;
  /** i18n key of the label; defaults to `settings.opt.<key>`. */
  label?: string;
  /** i18n key of an extra hint under the field. */
  help?: string;
  placeholder?: string;
  min?: number;
  max?: number;
  step?: number;
  /** Numbers are whole unless this is set (or `step` is fractional). */
  float?: boolean;
  /** For selects: value and the i18n key of its label. */
  choices?: Array<{ value: string; label: string }>;
  /** Grid width out of 24 on wide screens (default: 8 for switches and numbers, 12 for text, 24 for areas). */
  span?: number;
  /** For switches: an i18n key of a question asked before turning it off; cancelling keeps it on. */
  confirmOff?: string;
  /** Extra check on the typed value; returns an i18n key of the problem. */
  check?: (value: unknown) => string | undefined;
}

export function labelKey(field: FieldDef) {
  return field.label ?? `settings.opt.${field.key}`;
}

/** Option string -> form value. */
export function toFormValue(field: FieldDef, raw: string | undefined): unknown {
  const v = raw ?? '';
  switch (field.kind) {
    case 'switch':
      return v === 'true';
    case 'number':
      return v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
    case 'secret':
      return '';
    case 'json':
      return prettyJson(v);
    case 'tags':
      return v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return v;
  }
}

/** Form value -> option string, or undefined when nothing should be sent (a blank secret). */
export function toOptionValue(field: FieldDef, value: unknown): string | undefined {
  switch (field.kind) {
    case 'switch':
      return value ? 'true' : 'false';
    case 'number':
      return value === undefined || value === null || value === '' ? '' : String(value);
    case 'secret': {
      const s = String(value ?? '').trim();
      return s ? s : undefined;
    }
    case 'tags':
      return Array.isArray(value)
        ? value
            .map((s) => String(s).trim())
            .filter(Boolean)
            .join(',')
        : String(value ?? '');
    default:
      return String(value ?? '');
  }
}

/** JSON as the editors show it: indented, or the text itself when it does not parse. */
export function prettyJson(text: string): string {
  if (!text.trim()) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Same JSON modulo whitespace and key order of the text? Then it is not a change. */
function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return a === b;
  }
}

/** The [key, value] pairs that differ from the saved options (blank secrets are never sent). */
export function changedOptions(
  fields: FieldDef[],
  values: Record<string, unknown>,
  saved: OptionMap,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const field of fields) {
    const next = toOptionValue(field, values[field.key]);
    if (next === undefined) continue;
    const before = saved[field.key] ?? '';
    if (field.kind === 'json' ? sameJson(next, before) : next === before) continue;
    if (field.kind === 'number' && next !== '' && before !== '' && Number(next) === Number(before)) continue;
    out.push([field.key, field.kind === 'json' && next.trim() ? JSON.stringify(JSON.parse(next)) : next]);
  }
  return out;
}
