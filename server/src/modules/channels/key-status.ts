import { ChannelStatus } from '@modelgate/shared';
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/index.ts';
import { ApiError } from '../../infra/envelope.ts';
import {
  channelKeys,
  joinKeys,
  type KeyState,
  keptStates,
  parseKeyStates,
  splitKeys,
} from '../../relay/table-cache/channel-keys.ts';
import { type KeyView, keyViews } from './key-views.ts';
import { checkKeyFormat } from './keys.ts';
import { writeStatus } from './service.ts';
import { type ChannelRow, nowSec } from './store.ts';

type Db = Kysely<Database>;

/** Reads a channel row for a change, locked where the engine can lock rows (SQLite serialises writers). */
async function lockedRow(ctx: AppContext, db: Db, id: number): Promise<ChannelRow> {
  const q = db.selectFrom('channels').selectAll().where('id', '=', id);
  const row = await (ctx.db.dialect === 'sqlite' ? q : q.forUpdate()).executeTakeFirst();
  if (!row) throw new ApiError('channel not found', 404);
  return row;
}

/** Runs one change to a channel's keys in a transaction, then tells every instance to reload its channels. */
async function keyChange<T>(ctx: AppContext, id: number, fn: (db: Db, row: ChannelRow) => Promise<T>) {
  const out = await ctx.db.db.transaction().execute(async (db) => fn(db, await lockedRow(ctx, db, id)));
  ctx.bus.publish('channels');
  return out;
}

const saveStates = (db: Db, id: number, states: Record<string, KeyState>) =>
  db
    .updateTable('channels')
    .set({ key_status: Object.keys(states).length ? JSON.stringify(states) : null })
    .where('id', '=', id)
    .execute();

/**
 * Disables one key of a multi-key channel after a fatal upstream error (auto) or by an administrator. When no
 * enabled key is left, an enabled channel is disabled too. Returns false when the key was already disabled.
 */
export async function disableKey(
  ctx: AppContext,
  id: number,
  fp: string,
  reason: string,
  auto = true,
): Promise<boolean> {
  const done = await keyChange(ctx, id, async (db, row) => {
    const keys = channelKeys(Number(row.type), row.key, row.key_status);
    const target = keys.find((k) => k.fp === fp);
    if (!target || target.state) return false;
    const states = parseKeyStates(row.key_status);
    const status = auto ? ChannelStatus.AutoDisabled : ChannelStatus.ManuallyDisabled;
    states[fp] = { status, reason, time: nowSec() };
    await saveStates(db, row.id, states);
    if (keys.every((k) => k.fp === fp || k.state) && Number(row.status) === ChannelStatus.Enabled)
      await writeStatus(db, row, status, `every key is disabled; the last: ${reason}`);
    ctx.log.warn({ channel: id, key: fp, reason, auto }, 'channel key disabled');
    return true;
  });
  if (done && auto) ctx.metrics?.channelAutoDisabled(id, 'key');
  return done;
}

function keyAt(row: ChannelRow, index: number) {
  const keys = channelKeys(Number(row.type), row.key, row.key_status);
  const key = keys[index];
  if (!key) throw new ApiError(`the channel has no key #${index}`, 404);
  return { keys, key };
}

export async function enableKey(ctx: AppContext, id: number, index: number): Promise<void> {
  await keyChange(ctx, id, async (db, row) => {
    const { key } = keyAt(row, index);
    const states = parseKeyStates(row.key_status);
    delete states[key.fp];
    await saveStates(db, row.id, states);
  });
}

export async function disableKeyAt(ctx: AppContext, id: number, index: number): Promise<void> {
  const row = await lockedRow(ctx, ctx.db.db, id);
  const { key } = keyAt(row, index);
  await disableKey(ctx, id, key.fp, 'disabled by an administrator', false);
}

/** Adds keys, replaces the key at a position, or removes it; the other keys and their statuses stay. */
export async function editKeys(
  ctx: AppContext,
  id: number,
  edit:
    | { action: 'add'; keys: string }
    | { action: 'replace'; index: number; key: string }
    | { action: 'remove'; index: number },
): Promise<KeyView[]> {
  return keyChange(ctx, id, async (db, row) => {
    const type = Number(row.type);
    let keys = splitKeys(type, row.key);
    if (edit.action === 'add') {
      const added = splitKeys(type, edit.keys);
      if (!added.length) throw new ApiError('no key to add');
      for (const k of added) checkKeyFormat(type, k);
      keys = [...keys, ...added.filter((k) => !keys.includes(k))];
    } else {
      keyAt(row, edit.index);
      if (edit.action === 'replace') {
        const next = splitKeys(type, edit.key);
        if (next.length !== 1) throw new ApiError('give exactly one key to replace another');
        checkKeyFormat(type, next[0]);
        keys[edit.index] = next[0];
      } else {
        if (keys.length === 1) throw new ApiError('a channel keeps at least one key');
        keys.splice(edit.index, 1);
      }
    }
    const key = joinKeys(type, keys);
    const key_status = keptStates(row.key_status, keys);
    await db.updateTable('channels').set({ key, key_status }).where('id', '=', row.id).execute();
    return keyViews({ type, key, key_status });
  });
}
