import type { Expression, Kysely, Selectable, SqlBool } from 'kysely';
import type { Database, Db } from '../../db/index.ts';
import type { ChannelsTable } from '../../db/schema.ts';
import { containsLike } from '../../infra/like.ts';
import { channelKeys } from '../../relay/table-cache/channel-keys.ts';

export type ChannelRow = Selectable<ChannelsTable>;
/** A channel as the console API sends it: every column except the key, which never leaves the server. */
export type ChannelView = Omit<ChannelRow, 'key'>;

/** Every column but the key: list and search queries never read it. */
export const VIEW_COLUMNS = [
  'id',
  'type',
  'openai_organization',
  'test_model',
  'status',
  'name',
  'weight',
  'created_time',
  'test_time',
  'response_time',
  'base_url',
  'other',
  'balance',
  'balance_updated_time',
  'models',
  'group',
  'used_quota',
  'model_mapping',
  'status_code_mapping',
  'priority',
  'auto_ban',
  'other_info',
  'tag',
  'setting',
  'param_override',
  'max_input_tokens',
] as const satisfies ReadonlyArray<keyof ChannelView>;

const NUMERIC = [
  'id',
  'type',
  'status',
  'weight',
  'created_time',
  'test_time',
  'response_time',
  'balance',
  'balance_updated_time',
  'used_quota',
  'priority',
  'auto_ban',
  'max_input_tokens',
] as const;

export function toView(row: Partial<ChannelRow>): ChannelView {
  const out: Record<string, unknown> = {};
  for (const c of VIEW_COLUMNS) out[c] = row[c] ?? (NUMERIC.includes(c as (typeof NUMERIC)[number]) ? 0 : '');
  for (const c of NUMERIC) out[c] = Number(out[c]);
  return out as ChannelView;
}

export interface ListOptions {
  idSort: boolean;
  tagMode: boolean;
}

export interface SearchFilter {
  keyword?: string;
  group?: string;
  model?: string;
}

const ordered = (db: Kysely<Database>, idSort: boolean) => {
  const q = db.selectFrom('channels').select([...VIEW_COLUMNS, 'key', 'key_status']);
  return idSort ? q.orderBy('id', 'desc') : q.orderBy('priority', 'desc').orderBy('id', 'desc');
};

function filtered(db: Kysely<Database>, f: SearchFilter, idSort: boolean) {
  let q = ordered(db, idSort);
  const kw = f.keyword?.trim();
  if (kw) {
    q = q.where((eb) => {
      const ors: Expression<SqlBool>[] = [
        containsLike('name', kw),
        containsLike('base_url', kw),
        containsLike('tag', kw),
      ];
      if (/^\d{1,15}$/.test(kw)) ors.push(eb('id', '=', Number(kw)));
      return eb.or(ors);
    });
  }
  // Group membership is exact: the abilities index already splits the comma list.
  if (f.group?.trim()) {
    const g = f.group.trim();
    q = q.where('id', 'in', db.selectFrom('abilities').select('channel_id').where('group', '=', g));
  }
  if (f.model?.trim()) q = q.where(containsLike('models', f.model.trim()));
  return q;
}

/** A list row: the view, and how many keys the channel holds and how many of them are enabled (never the keys). */
function listView(row: Partial<ChannelRow>): ChannelView & { key_count: number; keys_enabled: number } {
  const keys = channelKeys(Number(row.type), row.key ?? '', row.key_status);
  return { ...toView(row), key_count: keys.length, keys_enabled: keys.filter((k) => !k.state).length };
}

/** Tag mode: one group per non-empty tag, and one per untagged channel, in list order. */
function groupByTag(rows: ChannelView[]): ChannelView[][] {
  const groups: ChannelView[][] = [];
  const byTag = new Map<string, ChannelView[]>();
  for (const r of rows) {
    if (!r.tag) {
      groups.push([r]);
      continue;
    }
    let g = byTag.get(r.tag);
    if (!g) {
      g = [];
      byTag.set(r.tag, g);
      groups.push(g);
    }
    g.push(r);
  }
  return groups;
}

export async function listChannels(h: Db, page: number, size: number, opts: ListOptions) {
  if (opts.tagMode) {
    const all = (await ordered(h.db, opts.idSort).execute()).map(listView);
    const groups = groupByTag(all);
    return { items: groups.slice(page * size, page * size + size).flat(), total: groups.length };
  }
  const [rows, count] = await Promise.all([
    ordered(h.db, opts.idSort)
      .limit(size)
      .offset(page * size)
      .execute(),
    h.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(listView), total: Number(count.n) };
}

export async function searchChannels(h: Db, f: SearchFilter, opts: ListOptions) {
  const rows = (await filtered(h.db, f, opts.idSort).limit(5000).execute()).map(listView);
  return opts.tagMode ? groupByTag(rows).flat() : rows;
}

export async function getChannel(db: Kysely<Database>, id: number): Promise<ChannelRow | undefined> {
  return db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertChannel(
  h: Db,
  db: Kysely<Database>,
  row: Omit<ChannelRow, 'id'>,
): Promise<number> {
  if (h.dialect === 'postgres') {
    const r = await db.insertInto('channels').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }
  const r = await db.insertInto('channels').values(row).executeTakeFirstOrThrow();
  return Number(r.insertId);
}

/** Distinct model names of enabled abilities. */
export async function enabledModels(h: Db): Promise<string[]> {
  const rows = await h.db
    .selectFrom('abilities')
    .select('model')
    .distinct()
    .where('enabled', '=', 1)
    .orderBy('model')
    .execute();
  return rows.map((r) => r.model);
}

/** Every model name any channel lists. */
export async function channelModelNames(h: Db): Promise<string[]> {
  const rows = await h.db.selectFrom('abilities').select('model').distinct().execute();
  return rows.map((r) => r.model);
}

export const nowSec = () => Math.floor(Date.now() / 1000);
