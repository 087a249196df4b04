import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { AbilitiesTable } from '../../db/schema.ts';
import type { ChannelRow } from './store.ts';

/**
 * The routing index the relay reads: one row per (group, model, channel). Every function here takes the
 * transaction the channel change runs in, so the index never disagrees with the channels table.
 */
type Db = Kysely<Database>;
export type AbilitySource = Pick<
  ChannelRow,
  'id' | 'models' | 'group' | 'status' | 'priority' | 'weight' | 'tag'
>;

const split = (list: string | null) => [
  ...new Set(
    (list ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

export function abilityRows(ch: AbilitySource): AbilitiesTable[] {
  const rows: AbilitiesTable[] = [];
  for (const group of split(ch.group)) {
    for (const model of split(ch.models)) {
      rows.push({
        group,
        model,
        channel_id: Number(ch.id),
        enabled: Number(ch.status) === 1 ? 1 : 0,
        priority: Number(ch.priority),
        weight: Number(ch.weight),
        tag: ch.tag ?? '',
      });
    }
  }
  return rows;
}

/** Replaces a channel's abilities with what its models and groups say now. */
export async function writeAbilities(db: Db, ch: AbilitySource): Promise<number> {
  await db.deleteFrom('abilities').where('channel_id', '=', Number(ch.id)).execute();
  const rows = abilityRows(ch);
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('abilities')
      .values(rows.slice(i, i + 500))
      .execute();
  return rows.length;
}

export async function setAbilitiesEnabled(db: Db, ids: number[], enabled: boolean): Promise<void> {
  if (ids.length)
    await db
      .updateTable('abilities')
      .set({ enabled: enabled ? 1 : 0 })
      .where('channel_id', 'in', ids)
      .execute();
}

export async function deleteAbilities(db: Db, ids: number[]): Promise<void> {
  if (ids.length) await db.deleteFrom('abilities').where('channel_id', 'in', ids).execute();
}

/** Drops abilities of channels that no longer exist and rebuilds every channel's; returns channels rebuilt. */
export async function rebuildAllAbilities(db: Db): Promise<{ channels: number; orphans: number }> {
  const orphans = await db
    .deleteFrom('abilities')
    .where('channel_id', 'not in', db.selectFrom('channels').select('id'))
    .executeTakeFirst();
  const channels = await db
    .selectFrom('channels')
    .select(['id', 'models', 'group', 'status', 'priority', 'weight', 'tag'])
    .execute();
  for (const ch of channels) await writeAbilities(db, ch);
  return { channels: channels.length, orphans: Number(orphans.numDeletedRows) };
}
