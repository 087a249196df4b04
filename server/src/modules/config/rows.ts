import type { Selectable } from 'kysely';
import type { ChannelsTable } from '../../db/schema.ts';

/** The channel columns a configuration file sets; the others (health, balance, usage) are the gateway's own. */
export const MANAGED_COLUMNS = [
  'type',
  'name',
  'key',
  'base_url',
  'models',
  'group',
  'priority',
  'weight',
  'status',
  'tag',
  'auto_ban',
  'model_mapping',
  'status_code_mapping',
  'setting',
  'param_override',
  'other',
  'openai_organization',
  'test_model',
  'max_input_tokens',
] as const;
export type ManagedColumn = (typeof MANAGED_COLUMNS)[number];
export type ManagedRow = Pick<Selectable<ChannelsTable>, ManagedColumn>;

/** JSON text compared by meaning: parsed and written again without spaces; '' stays ''. */
export function canonicalJson(text: string | null | undefined): string {
  const t = (text ?? '').trim();
  if (!t) return '';
  try {
    return JSON.stringify(JSON.parse(t));
  } catch {
    return t;
  }
}

/** A comma list with its blanks and spaces removed. */
export const canonicalList = (text: string | null | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .join(',');

/** The managed columns of a stored row, written the way a file's channel is, so equal means unchanged. */
export function managedRow(row: Selectable<ChannelsTable>): ManagedRow {
  const out = Object.fromEntries(MANAGED_COLUMNS.map((c) => [c, row[c]])) as ManagedRow;
  for (const c of ['model_mapping', 'status_code_mapping', 'setting', 'param_override'] as const)
    out[c] = canonicalJson(row[c]);
  out.models = canonicalList(row.models);
  out.group = canonicalList(row.group);
  for (const c of ['type', 'priority', 'weight', 'status', 'auto_ban', 'max_input_tokens'] as const)
    out[c] = Number(row[c]);
  return out;
}
