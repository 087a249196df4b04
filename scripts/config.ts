/**
 * Configuration as code: export the gateway's configuration as YAML, plan a file against the database, apply it.
 *
 *   npm run config -- export --out gateway.yaml
 *   npm run config -- plan gateway.yaml
 *   npm run config -- apply gateway.yaml
 *
 * Everything lives in server/src/modules/config/; this is only the entry point.
 */
import { main } from '../server/src/modules/config/cli.ts';

process.exitCode = await main(process.argv.slice(2));
