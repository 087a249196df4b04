import type { AppContext } from '../../context.ts';

export interface GroupInfo {
  desc: string;
  ratio: number;
}

/** Group names known to pricing (the keys of GroupRatio), sorted. */
export function groupNames(ctx: AppContext): string[] {
  return Object.keys(ctx.options.json<Record<string, number>>('GroupRatio') ?? {}).sort();
}

/** The ratio of a group (GroupRatio), 1 when the group has none. */
export function groupRatio(ctx: AppContext, group: string): number {
  const r = ctx.options.json<Record<string, number> | null>('GroupRatio')?.[group];
  return typeof r === 'number' && Number.isFinite(r) ? r : 1;
}

/**
 * The groups a user may pick for tokens and the playground: those of UserUsableGroups that have a ratio in
 * GroupRatio, plus always the user's own group.
 */
export function usableGroups(ctx: AppContext, userGroup: string): Record<string, GroupInfo> {
  const usable = ctx.options.json<Record<string, string>>('UserUsableGroups') ?? {};
  const ratios = ctx.options.json<Record<string, number>>('GroupRatio') ?? {};
  const out: Record<string, GroupInfo> = {};
  for (const [name, desc] of Object.entries(usable)) {
    if (Object.hasOwn(ratios, name)) out[name] = { desc: String(desc), ratio: groupRatio(ctx, name) };
  }
  if (userGroup && !out[userGroup])
    out[userGroup] = { desc: usable[userGroup] ?? 'user group', ratio: groupRatio(ctx, userGroup) };
  return out;
}

/** Distinct model names with an enabled ability in the group, sorted. */
export async function groupModels(ctx: AppContext, group: string): Promise<string[]> {
  const rows = await ctx.db.db
    .selectFrom('abilities')
    .select('model')
    .distinct()
    .where('group', '=', group)
    .where('enabled', '=', 1)
    .execute();
  return rows.map((r) => r.model).sort();
}
