import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { ApiError } from '../../../infra/envelope.ts';
import type { Caller } from '../../../relay/admit/auth.ts';
import { openProbe } from '../../../relay/admit/probe-callers.ts';
import { testModelOf } from '../../../relay/call/channel-test.ts';
import { relayState } from '../../../relay/relay-state.ts';
import { toEntry } from '../../../relay/table-cache/channels.ts';
import { mustGet } from '../service.ts';
import { assertTestable } from '../testing.ts';
import { sendAs } from './client-call.ts';
import { type CompatEstimate, estimateRun } from './estimate.ts';
import { CLIENT_FORMATS, type Matrix, tally } from './matrix.ts';
import { runScript, SCRIPTS } from './scripts.ts';
import { type CompatRun, latestRun, saveRun } from './store.ts';

/** Channels with a check going, per gateway: one run per channel at a time. */
const running = new WeakMap<AppContext, Set<number>>();

/** The admin a check bills, paying from their balance in their group, pinned to the channel. */
async function callerFor(ctx: AppContext, channelId: number, userId: number): Promise<Caller> {
  const row = await mustGet(ctx.db.db, channelId);
  assertTestable(Number(row.type));
  const user = await relayState(ctx).users.get(userId);
  if (!user) throw new ApiError('the user who runs the check was not found', 404);
  return { user, token: null, tokenName: 'compat-check', group: user.group, pinned: toEntry(row) };
}

/** What a check of the channel would cost the user. */
export async function estimateCheck(
  ctx: AppContext,
  channelId: number,
  userId: number,
): Promise<CompatEstimate> {
  const caller = await callerFor(ctx, channelId, userId);
  return estimateRun(ctx, caller, testModelOf(caller.pinned!));
}

/**
 * Runs every script in every client format against one channel through the relay (app.inject on the /v1
 * routes), billed to the user like the playground (their balance, their group, the log's token name
 * `compat-check`), and stores the matrix with the quota it was estimated at and the quota it charged.
 */
export async function runCheck(
  ctx: AppContext,
  app: FastifyInstance,
  channelId: number,
  userId: number,
  trigger: CompatRun['trigger'],
): Promise<CompatRun> {
  const caller = await callerFor(ctx, channelId, userId);
  const model = testModelOf(caller.pinned!);
  const estimate = await estimateRun(ctx, caller, model);
  if (caller.user.balance.available < estimate.quota)
    throw new ApiError(
      `the balance of ${caller.user.username} is below this check's estimated cost (${estimate.display})`,
      403,
    );
  const busy = running.get(ctx) ?? new Set<number>();
  running.set(ctx, busy);
  if (busy.has(channelId))
    throw new ApiError('a compatibility check of this channel is already running', 409);
  busy.add(channelId);
  const runs: Promise<unknown>[] = [];
  let charged = 0;
  caller.probe = {
    track: (run) => runs.push(run.catch(() => {})),
    charged: (quota) => {
      charged += quota;
    },
  };
  const probe = openProbe(caller);
  try {
    const results = {} as Matrix;
    for (const script of SCRIPTS) {
      results[script] = {} as Matrix[typeof script];
      for (const format of CLIENT_FORMATS) {
        results[script][format] = await runScript(
          script,
          (req) => sendAs(app, probe.key, format, req),
          model,
        ).catch((err: unknown) => ({
          verdict: 'fail' as const,
          reason: `the check failed: ${(err as Error)?.message ?? err}`,
          code: 'check_failed',
        }));
      }
    }
    // Each request's charge is settled after its answer ended; the run's cost is known once all are.
    await Promise.all(runs);
    const run = {
      channel_id: channelId,
      created_at: Math.floor(Date.now() / 1000),
      user_id: trigger === 'schedule' ? 0 : userId,
      trigger,
      model,
      estimated_quota: estimate.quota,
      charged_quota: charged,
      ...tally(results),
      results,
    };
    await saveRun(ctx.db, run);
    return (await latestRun(ctx.db, channelId)) ?? { id: 0, ...run };
  } finally {
    probe.end();
    busy.delete(channelId);
  }
}
