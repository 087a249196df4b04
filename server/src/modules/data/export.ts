import type { AppContext } from '../../context.ts';
import { writerThreadFor } from '../../ledger/worker/shared-thread.ts';
import { type ExportResult, runExport } from './rebuild.ts';
import { slicePaceFor } from './slices.ts';

/**
 * Rebuilds the hourly buckets of the usage log's consumption rows: `quota_data` (user x model x hour: count,
 * quota, token_used) for the dashboard's per-user views, and `log_hourly` (model x channel x hour: count, quota,
 * upstream cost, prompt and completion tokens) next to the log, for the stat over everyone, the all-users
 * dashboard and the margin.
 *
 * Why replace instead of increment: the log may live in another database (LOG_SQL_DSN), so no transaction can
 * cover "read these log rows" and "add them to the buckets". Instead each run recomputes every bucket from
 * `since` onward from the log rows up to the newest id, replaces those buckets, and moves the mark (mark.ts) to
 * that id with `log_hourly`. Running twice gives the same rows and a crash between runs loses nothing. `since` is
 * the earliest hour of any row above the previous mark (a late write of a batch, or history imported later),
 * and never later than the hour before the previous run (a row of a concurrent writer may commit after a higher
 * id was read). Buckets older than the oldest log row left are kept: see modules/retention.
 */
export function exportQuotaData(ctx: AppContext, now = Math.floor(Date.now() / 1000)): Promise<ExportResult> {
  // One export at a time per process (the timer's and one asked for meanwhile): a first build commits its buckets
  // while it reads, so two at once would insert the same buckets twice.
  const run = (running.get(ctx) ?? Promise.resolve()).catch(() => {}).then(() => exportWhereItRuns(ctx, now));
  running.set(ctx, run);
  return run;
}

const running = new WeakMap<AppContext, Promise<unknown>>();

/**
 * On the SQLite writer thread when both databases are SQLite files it writes (its statements would otherwise run
 * on this thread's event loop, tens of milliseconds each under load), else here.
 */
function exportWhereItRuns(ctx: AppContext, now: number): Promise<ExportResult> {
  const thread = writerThreadFor(ctx, ctx.db) && writerThreadFor(ctx, ctx.logDb);
  if (thread && ctx.db.path && ctx.logDb.path)
    return thread.exportQuotaData({ dbPath: ctx.db.path, logPath: ctx.logDb.path, now });
  return runExport(ctx, now, slicePaceFor(ctx.logDb.dialect));
}

/**
 * Runs the export every DataExportInterval minutes (re-read each cycle) while DataExportEnabled, on the
 * master node only. Stopped at shutdown.
 */
export function startQuotaDataExport(ctx: AppContext): void {
  if (ctx.config.nodeType !== 'master') return;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    const minutes = Math.max(1, ctx.options.int('DataExportInterval') || 5);
    timer = setTimeout(tick, minutes * 60_000);
    timer.unref();
  };
  const tick = () => {
    running = (ctx.options.bool('DataExportEnabled') ? exportQuotaData(ctx) : Promise.resolve())
      .catch((err) => ctx.log.error({ err }, 'quota data export failed'))
      .finally(schedule);
  };
  schedule();
  ctx.onClose(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}
