import type { AppContext } from '../../context.ts';
import { ensureLogPartitions } from '../../db/log-partitions/index.ts';
import { dropLogPartsBefore } from '../logs/drop-before.ts';
import { DEFAULT_PACE, type PurgePace, type PurgeSource, purgeInBatches, type Rest } from './purge.ts';
import { expiredAudit, expiredLogs, finishedTasks } from './targets.ts';

const DAY = 86_400;
const HOUR = 3600;
/** The first run waits ten minutes after start (a restarting fleet does not purge at once), then hourly. */
const FIRST_RUN_MS = 600_000;
const EVERY_MS = 3_600_000;

/**
 * The oldest time still kept, in unix seconds: whole hours, so the hour the dashboard export may rebuild next
 * is either complete in the log or gone from it entirely (modules/data/export.ts keeps older buckets).
 */
export function retentionCutoff(nowSec: number, days: number): number {
  const t = nowSec - days * DAY;
  return t - (t % HOUR);
}

export interface RetentionResult {
  logs: number;
  midjourneys: number;
  tasks: number;
  audit: number;
}

/**
 * One pass: usage logs older than LogRetentionDays, finished tasks older than TaskRetentionDays and audit log
 * entries older than AuditLogRetentionDays (0 = keep forever) are deleted in paced batches. The hourly `quota_data` buckets are left alone.
 */
export async function runRetention(
  ctx: AppContext,
  opts: { nowSec?: number; stopped?: () => boolean; pace?: PurgePace; rest?: Rest } = {},
): Promise<RetentionResult> {
  const now = opts.nowSec ?? Math.floor(Date.now() / 1000);
  const stopped = opts.stopped ?? (() => false);
  const pace = opts.pace ?? DEFAULT_PACE;
  const logDays = ctx.options.int('LogRetentionDays');
  const taskDays = ctx.options.int('TaskRetentionDays');
  const auditDays = ctx.options.int('AuditLogRetentionDays');
  const result: RetentionResult = { logs: 0, midjourneys: 0, tasks: 0, audit: 0 };
  const purge = async (name: keyof RetentionResult, source: PurgeSource) => {
    const started = performance.now();
    result[name] = await purgeInBatches(source, stopped, pace, opts.rest);
    if (result[name] > 0)
      ctx.log.info(
        { table: name, deleted: result[name], ms: Math.round(performance.now() - started) },
        'retention: expired rows deleted',
      );
  };
  // The usage log's weeks ahead (PostgreSQL, MySQL): hourly, whatever the retention.
  await ensureLogPartitions(ctx.logDb, now).catch((err) =>
    ctx.log.warn({ err }, 'usage log partitions ahead not added; tried again next pass'),
  );
  if (logDays > 0) {
    const cutoff = retentionCutoff(now, logDays);
    // Whole chunks (SQLite) or weeks (PostgreSQL, MySQL) first, then the older rows of the rest.
    const dropped = await dropLogPartsBefore(ctx, cutoff);
    await purge('logs', expiredLogs(ctx, cutoff));
    result.logs += dropped;
  }
  if (taskDays > 0) {
    const cutoff = retentionCutoff(now, taskDays);
    await purge('midjourneys', finishedTasks(ctx.db, 'midjourneys', cutoff * 1000));
    await purge('tasks', finishedTasks(ctx.db, 'tasks', cutoff));
  }
  if (auditDays > 0) await purge('audit', expiredAudit(ctx.db, retentionCutoff(now, auditDays)));
  return result;
}

/** Runs the retention pass on the master node ten minutes after start and then hourly; stopped at shutdown. */
export function startRetentionJob(ctx: AppContext): void {
  if (ctx.config.nodeType !== 'master') return;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    running = runRetention(ctx, { stopped: () => stopped })
      .catch((err) => ctx.log.error({ err }, 'retention pass failed'))
      .finally(() => schedule(EVERY_MS));
  };
  schedule(FIRST_RUN_MS);
  ctx.onClose(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running; // ends after the batch in progress
  });
}
