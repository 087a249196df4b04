import type { AuditChange } from '../audit/diff.ts';

const SIGN: Record<AuditChange['op'], string> = { create: '+', update: '~', delete: '-', action: '*' };
const MAX = 160;

const show = (v: unknown) => {
  const text = v === null || v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > MAX ? `${text.slice(0, MAX)}…` : text;
};

/** A plan as an operator reads it: one line per item, then its fields as before -> after. */
export function formatPlan(changes: AuditChange[]): string {
  if (!changes.length) return 'No changes: the database already matches the file.';
  const lines: string[] = [];
  for (const c of changes) {
    lines.push(`${SIGN[c.op]} ${c.entity} ${c.id}`);
    if (c.op === 'delete') continue;
    for (const [field, [before, after]] of Object.entries(c.fields))
      lines.push(
        c.op === 'create'
          ? `    ${field}: ${show(after)}`
          : `    ${field}: ${show(before)} -> ${show(after)}`,
      );
  }
  const count = (op: AuditChange['op']) => changes.filter((c) => c.op === op).length;
  lines.push(
    '',
    `Plan: ${count('create')} to add, ${count('update')} to change, ${count('delete')} to delete.`,
  );
  return lines.join('\n');
}
