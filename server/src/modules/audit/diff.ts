import { REDACTED, redactJsonText } from './redact.ts';

/** Rows of one entity by id, as read before or after a change. */
export type Snapshot = Map<string, Record<string, unknown>>;

/** One row's change: the fields that differ as [before, after] (null before a create and after a delete). */
export interface AuditChange {
  entity: string;
  id: string;
  /** `action`: a route that changes what no tracker reads (deleting old usage logs); `fields` holds its query. */
  op: 'create' | 'update' | 'delete' | 'action';
  fields: Record<string, [unknown, unknown]>;
}

export interface DiffRules {
  /** Columns whose values never appear: a change shows as [redacted] on both sides. */
  secret?: (field: string, row: Record<string, unknown>) => boolean;
  /** Columns moved by the gateway itself (counters, health), left out of the diff. */
  ignore?: ReadonlySet<string>;
}

const same = (a: unknown, b: unknown) => a === b || (a != null && b != null && String(a) === String(b));

/** The changes between two snapshots of one entity, in id order, secrets redacted. */
export function diffSnapshots(
  entity: string,
  before: Snapshot,
  after: Snapshot,
  rules: DiffRules = {},
): AuditChange[] {
  const out: AuditChange[] = [];
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true }),
  );
  for (const id of ids) {
    const b = before.get(id);
    const a = after.get(id);
    const fields: Record<string, [unknown, unknown]> = {};
    for (const field of new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])) {
      if (rules.ignore?.has(field)) continue;
      const was = b?.[field] ?? null;
      const now = a?.[field] ?? null;
      if (b && a && same(was, now)) continue;
      if (!b && (now === null || now === '')) continue;
      if (!a && (was === null || was === '')) continue;
      const secret = rules.secret?.(field, (a ?? b) as Record<string, unknown>);
      fields[field] = secret
        ? [b ? REDACTED : null, a ? REDACTED : null]
        : [redactJsonText(b ? was : null), redactJsonText(a ? now : null)];
    }
    if (!Object.keys(fields).length) continue;
    out.push({ entity, id, op: !b ? 'create' : !a ? 'delete' : 'update', fields });
  }
  return out;
}
