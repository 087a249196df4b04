import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { createContext } from '../context.ts';
import { ImportRefused } from './refused.ts';
import { checkSource, importInto } from './run.ts';

const USAGE = `Usage: npm run import -- --from <DSN> [--dry-run] [--logs] [--batch-size 500]

  --from        the new-api or one-api database: a SQLite file path, a MySQL DSN
                (user:pass@tcp(host:3306)/db or mysql://...) or a PostgreSQL URL (postgres://...)
  --dry-run     check and count everything, write nothing
  --logs        also copy the usage logs
  --batch-size  rows per read and per write transaction (default 500)

The target is this gateway's database, configured as for the server: SQL_DSN, SQLITE_PATH, LOG_SQL_DSN.`;

/**
 * `npm run import`: checks the source first (unreachable or foreign databases stop here, before the target
 * is even opened), then opens and migrates the target like the server does and imports. Exit codes: 0 done
 * (some rows may have been skipped: see the report), 2 refused or bad arguments, 1 failed.
 */
export async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const batchSize = Number(args['batch-size']);
  if (!args.from || !Number.isInteger(batchSize) || batchSize < 1) {
    console.error(USAGE);
    return 2;
  }
  try {
    const source = await checkSource(args.from);
    const config = loadConfig();
    const ctx = await createContext(config, pino({ level: process.env.LOG_LEVEL?.trim() || 'warn' }));
    try {
      const report = await importInto(ctx, source, {
        from: args.from,
        dryRun: args['dry-run'],
        logs: args.logs,
        batchSize,
      });
      console.log(report.format());
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    if (err instanceof ImportRefused) {
      console.error(`import refused: ${err.message}`);
      return 2;
    }
    console.error(`import failed: ${(err as Error).message}`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      logs: { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '500' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
}
