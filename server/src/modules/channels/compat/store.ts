import type { Kysely } from 'kysely';
import type { Database, Db } from '../../../db/index.ts';
import type { Matrix } from './matrix.ts';

export interface CompatRun {
  id: number;
  channel_id: number;
  created_at: number;
  user_id: number;
  trigger: 'manual' | 'schedule';
  model: string;
  estimated_quota: number;
  charged_quota: number;
  passed: number;
  failed: number;
  results: Matrix;
}

export type NewCompatRun = Omit<CompatRun, 'id'>;

export async function saveRun(db: Db, run: NewCompatRun): Promise<void> {
  await db.db
    .insertInto('channel_compat_runs')
    .values({ ...run, results: JSON.stringify(run.results) })
    .execute();
}

const toRun = (r: Record<string, unknown>): CompatRun => ({
  id: Number(r.id),
  channel_id: Number(r.channel_id),
  created_at: Number(r.created_at),
  user_id: Number(r.user_id),
  trigger: r.trigger === 'schedule' ? 'schedule' : 'manual',
  model: String(r.model),
  estimated_quota: Number(r.estimated_quota),
  charged_quota: Number(r.charged_quota),
  passed: Number(r.passed),
  failed: Number(r.failed),
  results: JSON.parse(String(r.results)) as Matrix,
});

/** A channel's runs, newest first. */
export async function listRuns(db: Db, channelId: number, limit: number): Promise<CompatRun[]> {
  const rows = await db.db
    .selectFrom('channel_compat_runs')
    .selectAll()
    .where('channel_id', '=', channelId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRun);
}

export async function latestRun(db: Db, channelId: number): Promise<CompatRun | null> {
  return (await listRuns(db, channelId, 1))[0] ?? null;
}

/** Forgets the runs of deleted channels (in the transaction that deletes them). */
export async function deleteRunsOf(db: Kysely<Database>, channelIds: number[]): Promise<void> {
  if (channelIds.length)
    await db.deleteFrom('channel_compat_runs').where('channel_id', 'in', channelIds).execute();
}
