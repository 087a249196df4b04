import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { AppContext } from '../../context.ts';
import { applyConfig, shellActor } from './apply.ts';
import { secretResolver } from './secrets.ts';

/**
 * CONFIG_FILE: the master node applies the file before it listens, so the gateway starts as the file says (the
 * other nodes follow through the change bus). A refused file stops the start: better no gateway than one
 * configured by half a file.
 */
export async function applyConfigFileAtStart(ctx: AppContext): Promise<void> {
  const file = ctx.config.configFile;
  if (!file || ctx.config.nodeType !== 'master') return;
  const plan = await applyConfig(
    ctx,
    readFileSync(file, 'utf8'),
    secretResolver(process.env, ctx.config.configSecretsFile || undefined),
    shellActor(),
    `CONFIG_FILE ${basename(file)}`,
  );
  ctx.log.info({ file, changes: plan.changes.length }, 'configuration file applied');
}
