import { createHash } from 'node:crypto';
import type { Db } from '../../db/index.ts';
import type { Bus } from '../../infra/bus.ts';
import { parseUserSetting, type UserSetting } from './setting.ts';

/** What the rest of the server needs to know about a user on every request, held in memory. */
export interface UserSnapshot {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
  email: string;
  setting: UserSetting;
  quota: number;
  used_quota: number;
  request_count: number;
  deleted: boolean;
  /** Changes whenever the password changes; session cookies carry it so a new password ends old sessions. */
  session_tag: string;
}

/**
 * In-memory users. `get` reads the database the first time and memory afterwards; any change to a user is
 * announced on the bus as `user:<id>` (by whoever wrote it, on any instance) and drops that entry, so the next
 * `get` reads fresh values. Entries also expire after `ttlMs` as a safety net for a lost cross-node message.
 * Soft-deleted and unknown users are never returned.
 */
export interface UserCache {
  get(id: number): Promise<UserSnapshot | undefined>;
  /** Memory only: undefined when the user is not loaded (or is deleted). */
  peek(id: number): UserSnapshot | undefined;
  /** Drops one user (or every user) from memory in this process. */
  invalidate(id?: number): void;
}

const COLUMNS = [
  'id',
  'username',
  'display_name',
  'role',
  'status',
  'group',
  'email',
  'setting',
  'quota',
  'used_quota',
  'request_count',
  'deleted_at',
  'password',
  'session_version',
] as const;

/**
 * A short digest of the password hash and the session version (the hash itself is not kept in memory):
 * a new password or "log out everywhere" changes it, which ends every session issued before.
 */
export const sessionTagOf = (user: { password: string; session_version: number }) =>
  createHash('sha256').update(`${user.password}:${user.session_version}`).digest('base64url').slice(0, 10);

export function createUserCache(
  handle: Db,
  bus: Bus,
  opts: { ttlMs?: number; maxEntries?: number } = {},
): UserCache {
  const ttlMs = opts.ttlMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 100_000;
  const entries = new Map<number, { snap: UserSnapshot; at: number }>();
  const loading = new Map<number, Promise<UserSnapshot | undefined>>();
  // Bumped on every invalidation: a load that started before it must not store what it read.
  const generation = new Map<number, number>();
  let epoch = 0;

  const load = async (id: number): Promise<UserSnapshot | undefined> => {
    const startedGen = generation.get(id) ?? 0;
    const startedEpoch = epoch;
    const row = await handle.db.selectFrom('users').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const snap: UserSnapshot = {
      id: Number(row.id),
      username: row.username,
      display_name: row.display_name,
      role: Number(row.role),
      status: Number(row.status),
      group: row.group,
      email: row.email,
      setting: parseUserSetting(row.setting),
      quota: Number(row.quota),
      used_quota: Number(row.used_quota),
      request_count: Number(row.request_count),
      deleted: row.deleted_at !== null && row.deleted_at !== undefined,
      session_tag: sessionTagOf(row),
    };
    if ((generation.get(id) ?? 0) === startedGen && epoch === startedEpoch) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as number);
      entries.set(id, { snap, at: Date.now() });
    }
    return snap;
  };

  const visible = (s: UserSnapshot | undefined) => (s && !s.deleted ? s : undefined);

  const cache: UserCache = {
    async get(id) {
      if (!Number.isSafeInteger(id) || id <= 0) return undefined;
      const hit = entries.get(id);
      if (hit && Date.now() - hit.at < ttlMs) return visible(hit.snap);
      let pending = loading.get(id);
      if (!pending) {
        pending = load(id).finally(() => loading.delete(id));
        loading.set(id, pending);
      }
      return visible(await pending);
    },
    peek(id) {
      const hit = entries.get(id);
      return hit && Date.now() - hit.at < ttlMs ? visible(hit.snap) : undefined;
    },
    invalidate(id) {
      if (id === undefined) {
        epoch++;
        entries.clear();
        loading.clear();
        return;
      }
      generation.set(id, (generation.get(id) ?? 0) + 1);
      entries.delete(id);
      loading.delete(id);
    },
  };

  // `user:12` also reaches `user:*` subscribers with payload "12" (see infra/bus.ts); `user:*` published
  // directly (payload "") means every user.
  bus.subscribe('user:*', (idText) => {
    const id = Number(idText);
    cache.invalidate(Number.isSafeInteger(id) && id > 0 ? id : undefined);
  });
  return cache;
}
