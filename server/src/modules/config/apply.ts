import { hostname, userInfo } from 'node:os';
import type { AppContext } from '../../context.ts';
import { appendAudit } from '../audit/store.ts';
import { deleteAbilities, writeAbilities } from '../channels/abilities.ts';
import { insertChannel, nowSec } from '../channels/store.ts';
import { writeOption } from '../options/store.ts';
import { desiredState } from './desired.ts';
import { type Plan, planAgainst } from './plan.ts';
import type { SecretResolver } from './secrets.ts';
import { type ConfigSource, parseConfig } from './source.ts';

/** Who applies a file, for the audit log: a console user, or the operator running the command. */
export interface Actor {
  userId: number;
  username: string;
  role: number;
  ip: string;
}

/** The operator at the shell (`npm run config -- apply`, CONFIG_FILE at start). */
export function shellActor(): Actor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    /* no passwd entry in some containers */
  }
  return { userId: 0, username: `${user}@${hostname()}`.slice(0, 64), role: 0, ip: '' };
}

/** The plan of a file against the running database, changing nothing; a bad file throws ConfigRefused. */
export async function planConfig(ctx: AppContext, text: string, resolve: SecretResolver): Promise<Plan> {
  const source = parseConfig(text);
  return planAgainst(ctx.db.db, desiredState(ctx, source, resolve));
}

/**
 * Makes the database what the file says, in one transaction (nothing is written when anything is refused),
 * then has every instance reload options and channels through the change bus and records the change in the
 * audit log. Applying the same file again changes nothing and records nothing.
 */
export async function applyConfig(
  ctx: AppContext,
  text: string,
  resolve: SecretResolver,
  actor: Actor,
  label: string,
): Promise<Plan> {
  const source: ConfigSource = parseConfig(text);
  const desired = desiredState(ctx, source, resolve);
  const plan = await ctx.db.db.transaction().execute(async (trx) => {
    const p = await planAgainst(trx, desired);
    const w = p.writes;
    for (const [key, value] of w.options) await writeOption(trx, ctx.db.dialect, key, value);
    if (w.deletes.length) {
      await deleteAbilities(trx, w.deletes);
      await trx.deleteFrom('channels').where('id', 'in', w.deletes).execute();
    }
    for (const u of w.updates) {
      await trx.updateTable('channels').set(u.set).where('id', '=', u.id).execute();
      await writeAbilities(trx, u.row);
    }
    for (const row of w.creates) {
      const full = {
        ...row,
        created_time: nowSec(),
        test_time: 0,
        response_time: 0,
        balance: 0,
        balance_updated_time: 0,
        used_quota: 0,
        other_info: '',
        key_status: null,
      };
      const id = await insertChannel(ctx.db, trx, full);
      await writeAbilities(trx, { ...row, id });
    }
    return p;
  });
  if (!plan.changes.length) return plan;
  if (plan.writes.options.length) {
    await ctx.options.reload();
    await ctx.bus.publish('options');
  }
  if (plan.writes.creates.length + plan.writes.updates.length + plan.writes.deletes.length)
    await ctx.bus.publish('channels');
  await appendAudit(ctx.db, {
    ...actor,
    method: 'APPLY',
    path: label,
    action: 'config apply',
    entity: 'config',
    target: label,
    status: 200,
    changes: plan.changes,
  });
  return plan;
}
