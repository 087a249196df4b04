import {
  ChannelStatus,
  channelCostProblem,
  channelSettingFields,
  channelTypeInfo,
  costProblemMessage,
  settingFieldError,
} from '@modelgate/shared';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { ApiError } from '../../infra/envelope.ts';
import { adminUrlPolicy } from '../../infra/ssrf.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { channelKeys, joinKeys, keptStates, splitKeys } from '../../relay/table-cache/channel-keys.ts';
import { deleteAbilities, rebuildAllAbilities, setAbilitiesEnabled, writeAbilities } from './abilities.ts';
import { deleteRunsOf } from './compat/store.ts';
import { assertKeyCustody, copyKeepsKeys } from './custody.ts';
import { keyViews } from './key-views.ts';
import { checkKeyFormat, splitBatchKeys } from './keys.ts';
import type { ChannelCreateInput, ChannelUpdateInput } from './schema.ts';
import { type ChannelRow, getChannel, insertChannel, nowSec, toView } from './store.ts';
import { channelTargetRefusal } from './targets.ts';

type Db = Kysely<Database>;

/**
 * Runs a change in one transaction (channels and abilities together), then has the relay reload, and answers
 * once this instance's relay routes by the change.
 */
async function change<T>(ctx: AppContext, fn: (db: Db) => Promise<T>): Promise<T> {
  const out = await ctx.db.db.transaction().execute(fn);
  await ctx.bus.publish('channels');
  return out;
}

export async function mustGet(db: Db, id: number): Promise<ChannelRow> {
  const row = await getChannel(db, id);
  if (!row) throw new ApiError('channel not found', 404);
  return row;
}

function otherInfo(row: Pick<ChannelRow, 'other_info'>): Record<string, unknown> {
  try {
    const v = JSON.parse(row.other_info || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Sets a channel's status, records why and when in other_info, and flips its abilities. */
export async function writeStatus(db: Db, row: ChannelRow, status: number, reason: string): Promise<void> {
  const info = { ...otherInfo(row), status_reason: reason, status_time: nowSec() };
  const set: Partial<ChannelRow> = { status, other_info: JSON.stringify(info) };
  // A multi-key channel enabled with every key out gets its automatically disabled keys back.
  if (status === ChannelStatus.Enabled && row.key !== undefined) {
    const keys = channelKeys(Number(row.type), row.key, row.key_status);
    if (keys.length > 1 && keys.every((k) => k.state)) {
      const manual = keys.filter((k) => k.state?.status === ChannelStatus.ManuallyDisabled);
      set.key_status = manual.length
        ? JSON.stringify(Object.fromEntries(manual.map((k) => [k.fp, k.state])))
        : null;
    }
  }
  await db.updateTable('channels').set(set).where('id', '=', row.id).execute();
  await setAbilitiesEnabled(db, [Number(row.id)], status === ChannelStatus.Enabled);
}

const manualReason = (status: number) =>
  status === ChannelStatus.Enabled ? 'enabled by an administrator' : 'disabled by an administrator';

/**
 * The type's own setting fields (region, search...), the multi-key mode and the upstream cost prices, checked
 * when a channel is saved.
 */
export function checkSetting(type: number, text: string | undefined) {
  if (!text?.trim()) return;
  const setting = JSON.parse(text) as Record<string, unknown>;
  const mode = setting.multi_key_mode;
  if (mode !== undefined && mode !== 'random' && mode !== 'polling')
    throw new ApiError('setting.multi_key_mode must be "random" or "polling"');
  for (const f of channelSettingFields(type)) {
    const why = settingFieldError(f, setting[f.name]);
    if (why) throw new ApiError(`setting.${why}`);
  }
  const cost = channelCostProblem(setting);
  if (cost) throw new ApiError(`setting.${cost.key} ${costProblemMessage(cost.problem)}`);
}

/** The channel type's own rule for the `other` field (a Vertex AI region), when it has one. */
export function checkOther(type: number, other: string) {
  try {
    adapterFor(type)?.checkOther?.(other);
  } catch (err) {
    throw new ApiError((err as Error).message);
  }
}

export async function createChannels(ctx: AppContext, input: ChannelCreateInput) {
  const name = input.name.trim();
  const key = input.key.trim();
  if (!name || !key) throw new ApiError('channel name and key are required');
  if (input.models.length === 0) throw new ApiError('at least one model is required');
  // A multi-key channel keeps its keys together; otherwise one key per line makes one channel per line.
  const multi = input.mode === 'multi_key';
  const keys = multi
    ? [joinKeys(input.type, splitKeys(input.type, key))]
    : splitBatchKeys(input.type, key, input.mode === 'batch');
  for (const k of multi ? splitKeys(input.type, key) : keys) checkKeyFormat(input.type, k);
  const other = input.other ?? channelTypeInfo(input.type)?.other?.default ?? '';
  checkOther(input.type, other);
  checkSetting(input.type, input.setting);
  checkTargets(ctx, input.base_url, input.setting);
  const groups = input.groups ?? input.group ?? [];
  const base: Omit<ChannelRow, 'id' | 'key'> = {
    type: input.type,
    name,
    openai_organization: input.openai_organization ?? '',
    test_model: input.test_model ?? '',
    status: input.status ?? ChannelStatus.Enabled,
    weight: input.weight ?? 0,
    created_time: nowSec(),
    test_time: 0,
    response_time: 0,
    base_url: input.base_url ?? '',
    other,
    balance: 0,
    balance_updated_time: 0,
    models: input.models.join(','),
    group: (groups.length ? groups : ['default']).join(','),
    used_quota: 0,
    model_mapping: input.model_mapping ?? '',
    status_code_mapping: input.status_code_mapping ?? '',
    priority: input.priority ?? 0,
    auto_ban: input.auto_ban ?? 1,
    other_info: '',
    tag: input.tag ?? '',
    setting: input.setting ?? '',
    param_override: input.param_override ?? '',
    max_input_tokens: input.max_input_tokens ?? 0,
    key_status: null,
  };
  return change(ctx, async (db) => {
    const ids: number[] = [];
    for (const k of keys) {
      const id = await insertChannel(ctx.db, db, { ...base, key: k });
      await writeAbilities(db, { ...base, id });
      ids.push(id);
    }
    return ids;
  });
}

/**
 * A base URL or proxy that is a link-local or metadata address literal is refused when saved (names are judged
 * at connect time).
 */
export function checkTargets(ctx: AppContext, url: string | undefined, setting: string | undefined): void {
  const refused = channelTargetRefusal(adminUrlPolicy(ctx.options), url, setting);
  if (refused) throw new ApiError(refused);
}

/**
 * Full or partial update; a blank key keeps the stored one. An admin who is not root keeps the keys only
 * while the channel still sends them where it did (custody.ts).
 */
export async function updateChannel(ctx: AppContext, input: ChannelUpdateInput, actorRole: number) {
  checkTargets(ctx, input.base_url, input.setting);
  return change(ctx, async (db) => {
    const row = await mustGet(db, input.id);
    const set: Partial<ChannelRow> = {};
    const copy = [
      'type',
      'name',
      'base_url',
      'other',
      'openai_organization',
      'test_model',
      'model_mapping',
      'status_code_mapping',
      'setting',
      'param_override',
      'priority',
      'weight',
      'tag',
      'auto_ban',
      'max_input_tokens',
    ] as const;
    for (const k of copy) if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
    if (input.models !== undefined) set.models = input.models.join(',');
    const groups = input.groups ?? input.group;
    if (groups !== undefined) set.group = (groups.length ? groups : ['default']).join(',');
    const key = input.key?.trim();
    if (key) {
      const type = set.type ?? row.type;
      const keys = splitKeys(type, key);
      for (const k of keys) checkKeyFormat(type, k);
      set.key = joinKeys(type, keys);
      set.key_status = keptStates(row.key_status, keys);
    }
    assertKeyCustody(actorRole, row, set, !!key);
    const next = { ...row, ...set };
    checkOther(Number(next.type), next.other ?? '');
    checkSetting(Number(next.type), next.setting ?? '');
    if (Object.keys(set).length) await db.updateTable('channels').set(set).where('id', '=', row.id).execute();
    if (input.status !== undefined && input.status !== Number(row.status)) {
      await writeStatus(db, next, input.status, manualReason(input.status));
      next.status = input.status;
    }
    await writeAbilities(db, next);
    return toView((await getChannel(db, row.id)) as ChannelRow);
  });
}

/**
 * A new channel with the same settings, named with a suffix, balance and usage zeroed. Root's copy keeps the
 * keys; an admin's copy has none and stays disabled until its keys are entered.
 */
export async function copyChannel(
  ctx: AppContext,
  id: number,
  suffix: string,
  resetBalance: boolean,
  actorRole: number,
) {
  return change(ctx, async (db) => {
    const { id: _drop, ...row } = await mustGet(db, id);
    const keyless = copyKeepsKeys(actorRole)
      ? {}
      : { key: '', key_status: null, status: ChannelStatus.ManuallyDisabled };
    const clone = {
      ...row,
      ...keyless,
      name: `${row.name}${suffix}`.slice(0, 191),
      created_time: nowSec(),
      used_quota: 0,
      ...(resetBalance ? { balance: 0, balance_updated_time: 0 } : {}),
    };
    const newId = await insertChannel(ctx.db, db, clone);
    await writeAbilities(db, { ...clone, id: newId });
    return newId;
  });
}

export async function deleteChannels(ctx: AppContext, ids: number[]): Promise<number> {
  return change(ctx, async (db) => {
    const r = await db.deleteFrom('channels').where('id', 'in', ids).executeTakeFirst();
    await deleteAbilities(db, ids);
    await deleteRunsOf(db, ids);
    return Number(r.numDeletedRows);
  });
}

export async function deleteOneChannel(ctx: AppContext, id: number): Promise<void> {
  if ((await deleteChannels(ctx, [id])) === 0) throw new ApiError('channel not found', 404);
}

export async function deleteDisabledChannels(ctx: AppContext): Promise<number> {
  return change(ctx, async (db) => {
    const rows = await db
      .selectFrom('channels')
      .select('id')
      .where('status', 'in', [ChannelStatus.ManuallyDisabled, ChannelStatus.AutoDisabled])
      .execute();
    const ids = rows.map((r) => Number(r.id));
    if (ids.length === 0) return 0;
    await db.deleteFrom('channels').where('id', 'in', ids).execute();
    await deleteAbilities(db, ids);
    await deleteRunsOf(db, ids);
    return ids.length;
  });
}

export async function setTagOnChannels(ctx: AppContext, ids: number[], tag: string): Promise<number> {
  return change(ctx, async (db) => {
    const r = await db.updateTable('channels').set({ tag }).where('id', 'in', ids).executeTakeFirst();
    await db.updateTable('abilities').set({ tag }).where('channel_id', 'in', ids).execute();
    return Number(r.numUpdatedRows);
  });
}

async function channelsWithTag(db: Db, tag: string): Promise<ChannelRow[]> {
  const rows = await db.selectFrom('channels').selectAll().where('tag', '=', tag).execute();
  if (rows.length === 0) throw new ApiError(`no channel has the tag "${tag}"`, 404);
  return rows;
}

export async function setTagStatus(ctx: AppContext, tag: string, status: 1 | 2): Promise<number> {
  return change(ctx, async (db) => {
    const rows = await channelsWithTag(db, tag);
    for (const row of rows)
      if (Number(row.status) !== status) await writeStatus(db, row, status, manualReason(status));
    return rows.length;
  });
}

export interface TagEdit {
  tag: string;
  newTag?: string;
  modelMapping?: string;
  models?: string[];
  groups?: string[];
  priority?: number;
  weight?: number;
}

/** Edits every channel of a tag at once; fields left out (or blank) stay as they are. */
export async function editTag(ctx: AppContext, edit: TagEdit): Promise<number> {
  const set: Partial<ChannelRow> = {};
  if (edit.newTag !== undefined && edit.newTag !== edit.tag) set.tag = edit.newTag;
  if (edit.modelMapping !== undefined) set.model_mapping = edit.modelMapping;
  if (edit.models !== undefined) set.models = edit.models.join(',');
  if (edit.groups !== undefined) set.group = edit.groups.join(',');
  if (edit.priority !== undefined) set.priority = edit.priority;
  if (edit.weight !== undefined) set.weight = edit.weight;
  if (Object.keys(set).length === 0) throw new ApiError('nothing to change');
  return change(ctx, async (db) => {
    const rows = await channelsWithTag(db, edit.tag);
    await db.updateTable('channels').set(set).where('tag', '=', edit.tag).execute();
    for (const row of rows) await writeAbilities(db, { ...row, ...set });
    return rows.length;
  });
}

export async function fixAbilities(ctx: AppContext): Promise<number> {
  const r = await change(ctx, (db) => rebuildAllAbilities(db));
  return r.channels;
}

/** One channel for the console, with its keys' statuses when it holds several (never the keys). */
export async function channelView(ctx: AppContext, id: number) {
  const row = await mustGet(ctx.db.db, id);
  const keys = keyViews(row);
  return keys.length > 1 ? { ...toView(row), keys } : toView(row);
}
