/**
 * Imports a new-api or one-api database into this gateway's database.
 *
 *   npm run import -- --from <DSN> [--dry-run] [--logs]
 *
 * Everything lives in server/src/import/ (one file per entity); this is only the entry point.
 */
import { main } from '../server/src/import/cli.ts';

process.exitCode = await main(process.argv.slice(2));
