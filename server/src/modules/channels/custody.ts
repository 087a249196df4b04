import { channelSettingFields, Role } from '@modelgate/shared';
import { ApiError } from '../../infra/envelope.ts';
import type { ChannelRow } from './store.ts';

/**
 * Who may change where a channel's keys are sent. The keys go to the base URL, through the proxy, to the
 * host its type, region and account fields name. An admin who is not root cannot read keys, so an admin may
 * not repoint a channel and keep its keys either: changing any of those fields keeps the keys only when root
 * does it or the keys are entered again in the same save; a copy made by an admin carries no keys.
 */
const TARGET_COLUMNS = ['type', 'base_url', 'other', 'openai_organization'] as const;
const TARGET_SETTINGS = ['proxy', 'region', 'account_id', 'workspace', 'aws_cross_region', 'domain'];

const settingOf = (text: string | null | undefined): Record<string, unknown> => {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

const same = (a: unknown, b: unknown) =>
  JSON.stringify(typeof a === 'string' ? a.trim() : (a ?? '')) ===
  JSON.stringify(typeof b === 'string' ? b.trim() : (b ?? ''));

/** The fields of `next` that send the keys somewhere else than `row` does. */
export function keyTargetChanges(row: ChannelRow, next: Partial<ChannelRow>): string[] {
  const changed: string[] = TARGET_COLUMNS.filter(
    (k) => next[k] !== undefined && !same(String(next[k]), String(row[k] ?? '')),
  );
  if (next.setting !== undefined) {
    const before = settingOf(row.setting);
    const after = settingOf(next.setting);
    const names = new Set([
      ...TARGET_SETTINGS,
      ...channelSettingFields(Number(row.type)).map((f) => f.name),
      ...channelSettingFields(Number(next.type ?? row.type)).map((f) => f.name),
    ]);
    for (const n of names) if (!same(before[n], after[n])) changed.push(`setting.${n}`);
  }
  return changed;
}

/** Refuses (403) an admin's change of where stored keys go unless the save enters the keys again. */
export function assertKeyCustody(
  actorRole: number,
  row: ChannelRow,
  next: Partial<ChannelRow>,
  keysEntered: boolean,
): void {
  if (actorRole >= Role.Root || keysEntered || !String(row.key ?? '').trim()) return;
  const changed = keyTargetChanges(row, next);
  if (changed.length)
    throw new ApiError(
      `changing where this channel's keys are sent (${changed.join(', ')}) needs the keys entered again, unless root does it`,
      403,
    );
}

/** Whether a copy made by `actorRole` carries the original's keys (root's copies do; an admin's do not). */
export const copyKeepsKeys = (actorRole: number) => actorRole >= Role.Root;
