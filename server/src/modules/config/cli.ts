import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { stringify } from 'yaml';
import { loadConfig } from '../../config.ts';
import { createContext } from '../../context.ts';
import { applyConfig, planConfig, shellActor } from './apply.ts';
import { configJsonSchema } from './document.ts';
import { exportConfig, type KeyMode } from './export.ts';
import { formatPlan } from './format.ts';
import { secretResolver } from './secrets.ts';
import { ConfigRefused } from './source.ts';

const USAGE = `Usage: npm run config -- <command> [options]

  export [--out FILE] [--keys none|plain|secrets] [--secrets-out FILE]
            write the configuration as YAML (stdout without --out). Channel keys and secret options are
            left out by default; --keys plain writes them into the file; --keys secrets writes
            {secret: NAME} references and the values to --secrets-out
  plan FILE [--secrets FILE]
            show what apply would change, item by item; changes nothing
  apply FILE [--secrets FILE]
            make the database what FILE says, in one transaction, and tell every instance
  schema [--out FILE]
            print the JSON Schema of the file (docs/config.schema.json)

Keys given as {env: NAME} come from the environment, {secret: NAME} from the secrets file (--secrets or
CONFIG_SECRETS_FILE). The database is configured as for the server: SQL_DSN, SQLITE_PATH, REDIS_CONN_STRING.
Exit codes: 0 done, 2 refused file or bad arguments, 1 failed.`;

/** `npm run config`: export, plan, apply and schema. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, file] = args.positionals;
  const v = args.values;
  if (v.help || !command) {
    console.log(USAGE);
    return command || v.help ? 0 : 2;
  }
  if (command === 'schema') {
    const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
    if (v.out) writeFileSync(v.out, text);
    else process.stdout.write(text);
    return 0;
  }
  const keys = (v.keys ?? 'none') as KeyMode;
  if (!['export', 'plan', 'apply'].includes(command) || (command !== 'export' && !file)) {
    console.error(USAGE);
    return 2;
  }
  if (!['none', 'plain', 'secrets'].includes(keys) || (keys === 'secrets' && !v['secrets-out'])) {
    console.error('--keys must be none, plain or secrets; secrets needs --secrets-out FILE');
    return 2;
  }
  try {
    const text = file ? readFileSync(file, 'utf8') : '';
    const ctx = await createContext(loadConfig(env), pino({ level: env.LOG_LEVEL?.trim() || 'warn' }));
    try {
      const resolve = secretResolver(env, v.secrets ?? env.CONFIG_SECRETS_FILE?.trim());
      if (command === 'export') {
        const out = await exportConfig(ctx.db, keys);
        if (v.out) writeFileSync(v.out, out.yaml);
        else process.stdout.write(out.yaml);
        if (keys === 'secrets') writeFileSync(v['secrets-out']!, stringify(out.secrets), { mode: 0o600 });
      } else if (command === 'plan') {
        console.log(formatPlan((await planConfig(ctx, text, resolve)).changes));
      } else {
        const plan = await applyConfig(ctx, text, resolve, shellActor(), basename(file!));
        console.log(formatPlan(plan.changes));
        if (plan.changes.length) console.log('Applied.');
      }
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    if (err instanceof ConfigRefused) {
      console.error(`${file}: refused, nothing was changed:\n${err.message}`);
      return 2;
    }
    console.error(`config ${command} failed: ${(err as Error).message}`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string' },
      keys: { type: 'string' },
      'secrets-out': { type: 'string' },
      secrets: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
