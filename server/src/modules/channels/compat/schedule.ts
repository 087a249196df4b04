import { ChannelStatus, Role } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { adapterFor } from '../../../relay/providers/index.ts';
import { relayState } from '../../../relay/relay-state.ts';
import { notifyUser } from '../../../relay/settle/user-notifier.ts';
import { isStopping } from '../stopping.ts';
import { type CellChange, changesBetween } from './matrix.ts';
import { runCheck } from './run.ts';
import { latestRun } from './store.ts';

const UNTESTABLE = new Set([2, 5, 36]);
const TICK_MS = 60_000;

export interface ScheduledResult {
  checked: number;
  changes: Array<{ channelId: number; channelName: string; changes: CellChange[] }>;
}

/** The root administrator (the lowest id), who pays for scheduled checks and is told of changes. */
async function rootUserId(ctx: AppContext): Promise<number | null> {
  const row = await ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('role', '>=', Role.Root)
    .orderBy('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

const describe = (c: CellChange) =>
  `${c.script} / ${c.format}: ${c.from} -> ${c.to}${c.reason ? ` (${c.reason})` : ''}`;

/**
 * One scheduled round: a check of every enabled channel, billed to the root administrator; when a cell went
 * from pass to fail or back since the channel's previous run, root is told through their notification setting
 * (webhook or e-mail), one notice per channel.
 */
export async function runScheduledChecks(ctx: AppContext, app: FastifyInstance): Promise<ScheduledResult> {
  const result: ScheduledResult = { checked: 0, changes: [] };
  const payer = await rootUserId(ctx);
  if (payer === null) return result;
  const channels = await ctx.db.db
    .selectFrom('channels')
    .select(['id', 'name', 'type'])
    .where('status', '=', ChannelStatus.Enabled)
    .orderBy('id')
    .execute();
  for (const ch of channels) {
    if (isStopping(ctx)) break;
    const id = Number(ch.id);
    if (UNTESTABLE.has(Number(ch.type)) || !adapterFor(Number(ch.type))) continue;
    try {
      const before = await latestRun(ctx.db, id);
      const run = await runCheck(ctx, app, id, payer, 'schedule');
      result.checked++;
      const changes = before ? changesBetween(before.results, run.results) : [];
      if (!changes.length) continue;
      result.changes.push({ channelId: id, channelName: ch.name, changes });
      const root = await relayState(ctx).users.get(payer);
      if (!root) continue;
      await notifyUser(ctx, root, {
        type: 'channel_compat_changed',
        title: `Channel #${id} ${ch.name}: compatibility changed`,
        content: changes.map(describe).join('\n'),
        values: changes,
      }).catch((err) =>
        ctx.log.warn({ err: String(err), channel: id }, 'compatibility notice not delivered'),
      );
    } catch (err) {
      ctx.log.warn({ err, channel: id }, 'scheduled compatibility check failed');
    }
  }
  return result;
}

/**
 * On the master node only (one instance runs background jobs): every minute, starts a round when
 * ChannelCompatCheckInterval minutes (0 = off, the default) have passed since the last one began.
 */
export function startCompatSchedule(ctx: AppContext, app: FastifyInstance): void {
  if (ctx.config.nodeType !== 'master') return;
  let last = Date.now();
  let busy = false;
  const timer = setInterval(() => {
    const minutes = ctx.options.int('ChannelCompatCheckInterval');
    if (busy || minutes <= 0 || Date.now() - last < minutes * 60_000) return;
    busy = true;
    last = Date.now();
    runScheduledChecks(ctx, app)
      .catch((err) => ctx.log.error({ err }, 'scheduled compatibility checks failed'))
      .finally(() => {
        busy = false;
      });
  }, TICK_MS);
  timer.unref();
  ctx.onClose(() => clearInterval(timer));
}
