import { Role } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { VERSION } from '../status/version.ts';

export interface SetupState {
  /** The first-run wizard has been completed. */
  status: boolean;
  /** A root user exists. */
  root_init: boolean;
  database_type: 'sqlite' | 'postgres' | 'mysql';
}

const done = new WeakSet<AppContext>();

/**
 * Setup is done when a `setups` row exists. An older database with a root user but no row gets its row
 * (upgrade path). Once done it never goes back, so the answer is kept in memory from then on.
 */
export async function setupState(ctx: AppContext): Promise<SetupState> {
  const database_type = ctx.db.dialect;
  if (done.has(ctx)) return { status: true, root_init: true, database_type };
  const db = ctx.db.db;
  const row = await db.selectFrom('setups').select('id').executeTakeFirst();
  const root = await db.selectFrom('users').select('id').where('role', '>=', Role.Root).executeTakeFirst();
  if (!row && root && ctx.config.nodeType === 'master') {
    await markSetupDone(ctx).catch(() => {});
  }
  const status = !!row || !!root;
  if (status && root) done.add(ctx);
  return { status, root_init: !!root, database_type };
}

/** Inserts the one `setups` row (id 1, so a second concurrent insert fails on the primary key). */
export async function markSetupDone(ctx: AppContext, db = ctx.db.db): Promise<void> {
  await db
    .insertInto('setups')
    .values({ id: 1, version: VERSION, initialized_at: Math.floor(Date.now() / 1000) })
    .execute();
}

export function rememberSetupDone(ctx: AppContext): void {
  done.add(ctx);
}
