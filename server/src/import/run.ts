import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { detectSource, type SourceShape } from './detect.ts';
import { importAbilities } from './entities/abilities.ts';
import { importChannels } from './entities/channels.ts';
import { importLogs } from './entities/logs.ts';
import { importOptions } from './entities/options.ts';
import { importRedemptions } from './entities/redemptions.ts';
import { importTokens } from './entities/tokens.ts';
import { importTopUps } from './entities/topups.ts';
import { importUsers } from './entities/users.ts';
import type { ImportJob } from './job.ts';
import { ImportReport } from './report.ts';
import { openSource, type SourceDb, sourceKind } from './source.ts';

export interface ImportOptions {
  /** The source database: a SQLite path or a MySQL / PostgreSQL DSN, as new-api's SQL_DSN takes it. */
  from: string;
  dryRun?: boolean;
  /** Also copy the usage logs (can be millions of rows). */
  logs?: boolean;
  /** Rows per read and per write transaction. */
  batchSize?: number;
}

/** A source that is reachable and is a new-api or one-api database; throws ImportRefused otherwise. */
export interface CheckedSource extends SourceShape {
  src: SourceDb;
  from: string;
}

export async function checkSource(from: string): Promise<CheckedSource> {
  const src = await openSource(from);
  try {
    return { src, from, ...(await detectSource(src)) };
  } catch (err) {
    await src.close().catch(() => {});
    throw err;
  }
}

/** Names a source by engine and address (password left out), so its log mark survives a changed password. */
function sourceId(from: string): string {
  const { dialect, target } = sourceKind(from);
  const bare = target.replace(/\/\/[^@/]*@/, '//').replace(/^[^@/(]*@/, '');
  return createHash('sha256').update(`${dialect}|${bare}`).digest('hex').slice(0, 32);
}

/**
 * Moves a checked source into the gateway `ctx` points at, entity by entity in the order their references
 * need (users before tokens and top-ups, channels before their abilities). Closes the source.
 */
export async function importInto(
  ctx: AppContext,
  source: CheckedSource,
  opts: ImportOptions,
): Promise<ImportReport> {
  const job: ImportJob = {
    ctx,
    src: source.src,
    flavor: source.flavor,
    tables: source.tables,
    dryRun: !!opts.dryRun,
    batchSize: Math.max(1, opts.batchSize ?? 500),
    sourceId: sourceId(source.from),
    report: new ImportReport(source.src.label, source.flavor, !!opts.dryRun),
    users: new Set(),
    channels: new Map(),
    db: ctx.db.db,
    afterCommit: [],
  };
  try {
    await inOneTransaction(job, async () => {
      await importUsers(job);
      await importTokens(job);
      await importChannels(job);
      await importAbilities(job);
      await importOptions(job);
      await importRedemptions(job);
      await importTopUps(job);
    });
    // Usage logs may live in another database; they follow the committed accounts, marked so a rerun resumes.
    if (opts.logs) await importLogs(job);
    else if (job.tables.has('logs'))
      job.report.entity('logs').note('usage logs were not copied (add --logs)');
    for (const t of ['midjourneys', 'tasks', 'quota_data'])
      if (job.tables.has(t))
        job.report
          .entity('not moved')
          .note(`table ${t} (drawing and task history, dashboard data) is not imported`);
  } finally {
    await source.src.close().catch(() => {});
  }
  return job.report;
}

/**
 * Runs the entity steps in one transaction of the gateway's database: all or nothing. A refused row is
 * reported and skipped inside it (a savepoint); an error the steps do not expect rolls everything back. Once
 * committed, the changes are announced (reloads on every instance).
 */
async function inOneTransaction(job: ImportJob, steps: () => Promise<void>): Promise<void> {
  if (job.dryRun) return steps();
  const trx = await job.ctx.db.db.startTransaction().execute();
  job.db = trx;
  job.trx = trx;
  try {
    await steps();
    await trx.commit().execute();
  } catch (err) {
    await trx.rollback().execute();
    throw err;
  } finally {
    job.db = job.ctx.db.db;
    job.trx = undefined;
  }
  for (const announce of job.afterCommit) await announce();
}

/** Checks the source, then imports it: the whole run, for callers that already have a context. */
export async function runImport(ctx: AppContext, opts: ImportOptions): Promise<ImportReport> {
  return importInto(ctx, await checkSource(opts.from), opts);
}
