import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';

/**
 * A short name of the deployment's database, for Redis keys and messages: gateways that share one Redis but
 * not one database never read each other's state (channel ids of different databases collide).
 */
export function databaseNamespace(config: Pick<Config, 'sqlDsn' | 'sqlitePath'>): string {
  return createHash('sha256')
    .update(config.sqlDsn || config.sqlitePath)
    .digest('hex')
    .slice(0, 12);
}
