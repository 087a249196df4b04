import { Role, UserStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import type { UserSnapshot } from './cache.ts';
import { findById } from './store.ts';

export const MANAGE_ACTIONS = ['promote', 'demote', 'disable', 'enable', 'delete'] as const;
export type ManageAction = (typeof MANAGE_ACTIONS)[number];

const ROOT_REFUSALS: Partial<Record<ManageAction, string>> = {
  disable: 'the root user cannot be disabled',
  demote: 'the root user cannot be demoted',
  delete: 'the root user cannot be deleted',
};

/**
 * One admin action on a user. Admins act only on lower
 * roles (root on anyone below root); only root promotes to admin; root is never disabled, demoted or deleted;
 * a deleted user takes no action any more. Returns the row's new role and status.
 */
export async function manageUser(
  ctx: AppContext,
  actor: UserSnapshot,
  targetId: number,
  action: ManageAction,
): Promise<{ role: number; status: number }> {
  const db = ctx.db.db;
  const row = await findById(db, targetId, { withDeleted: true });
  if (!row) throw new ApiError('user not found');
  if (row.role >= Role.Root && ROOT_REFUSALS[action]) throw new ApiError(ROOT_REFUSALS[action]);
  if (row.role >= actor.role)
    throw new ApiError('you cannot manage a user whose role is equal to or above yours', 403);
  const deleted = row.deleted_at !== null || row.status === UserStatus.Deleted;
  if (deleted)
    throw new ApiError(
      action === 'enable' ? 'a deleted user cannot be enabled' : 'this user has been deleted',
    );

  const set: { role?: number; status?: number; deleted_at?: number; access_token?: null } = {};
  switch (action) {
    case 'promote':
      if (actor.role < Role.Root) throw new ApiError('only the root user can promote users to admin', 403);
      if (row.role >= Role.Admin) throw new ApiError('this user is already an admin');
      set.role = Role.Admin;
      break;
    case 'demote':
      if (row.role <= Role.Common) throw new ApiError('this user is already a common user');
      set.role = Role.Common;
      break;
    case 'disable':
      set.status = UserStatus.Disabled;
      break;
    case 'enable':
      set.status = UserStatus.Enabled;
      break;
    case 'delete':
      set.status = UserStatus.Deleted;
      set.deleted_at = Math.floor(Date.now() / 1000);
      set.access_token = null;
      break;
  }
  await db.updateTable('users').set(set).where('id', '=', row.id).execute();
  await ctx.bus.publish(`user:${row.id}`);
  return { role: set.role ?? row.role, status: set.status ?? row.status };
}
