import type { Db } from '../../db/index.ts';
import type { Bus } from '../../infra/bus.ts';

/**
 * Ids of sessions ended by logout, until their cookies would expire. Kept in the database and in memory:
 * a revocation is announced on the bus (`session-revoked`, across instances with Redis) and every instance
 * also reloads the list every SYNC_FREQUENCY seconds, so a logged-out cookie works nowhere.
 */
export interface RevokedSessions {
  has(sid: string): boolean;
  revoke(sid: string, expiresAt: number): Promise<void>;
  reload(): Promise<void>;
  stop(): void;
}

const TOPIC = 'session-revoked';

export async function createRevokedSessions(handle: Db, bus: Bus, syncSec: number): Promise<RevokedSessions> {
  let ids = new Map<string, number>();
  const nowSec = () => Math.floor(Date.now() / 1000);

  const reload = async () => {
    const now = nowSec();
    await handle.db.deleteFrom('revoked_sessions').where('expires_at', '<', now).execute();
    const rows = await handle.db.selectFrom('revoked_sessions').select(['sid', 'expires_at']).execute();
    const next = new Map<string, number>();
    for (const r of rows) next.set(r.sid, Number(r.expires_at));
    // Keep revocations announced while the rows were being read.
    for (const [sid, exp] of ids) if (exp >= now && !next.has(sid)) next.set(sid, exp);
    ids = next;
  };

  await reload();
  bus.subscribe(TOPIC, (payload) => {
    const [sid, exp] = payload.split(':');
    if (sid) ids.set(sid, Number(exp) || nowSec() + 3600);
  });
  const timer = setInterval(() => void reload().catch(() => {}), Math.max(1, syncSec) * 1000);
  timer.unref();

  return {
    has(sid) {
      const exp = ids.get(sid);
      return exp !== undefined && exp >= nowSec();
    },
    async revoke(sid, expiresAt) {
      const row = { sid, expires_at: expiresAt };
      if (handle.dialect === 'mysql')
        await handle.db.insertInto('revoked_sessions').values(row).onDuplicateKeyUpdate(row).execute();
      else
        await handle.db
          .insertInto('revoked_sessions')
          .values(row)
          .onConflict((oc) => oc.column('sid').doNothing())
          .execute();
      ids.set(sid, expiresAt);
      bus.publish(TOPIC, `${sid}:${expiresAt}`);
    },
    reload,
    stop: () => clearInterval(timer),
  };
}
