/** What a secret's value is replaced with in the audit log: that it changed is kept, the value is not. */
export const REDACTED = '[redacted]';

/** Keys inside JSON settings whose values are secrets (webhook secrets, service account keys, passwords). */
const SECRET_KEY = /(secret|password|passwd|api_?key|access_?key|private_?key|token|credential)s?$/i;

/** A JSON text with the values of secret-looking keys replaced, at any depth; other text as it is. */
export function redactJsonText(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[{[]/.test(value)) return value;
  try {
    const parsed = JSON.parse(value);
    return JSON.stringify(redactDeep(parsed));
  } catch {
    return value;
  }
}

/** A copy of `value` with secret-looking keys' values replaced, at any depth. */
export function redactDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactDeep);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = SECRET_KEY.test(k) && v !== '' && v !== null ? REDACTED : redactDeep(v);
  return out;
}
