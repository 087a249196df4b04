/**
 * Checks the audit log's hash chain: an edited, inserted or removed entry is reported with its seq.
 *
 *   npm run audit:verify
 *
 * The database is configured as for the server (SQL_DSN, SQLITE_PATH); the work is in server/src/modules/audit/.
 */
import { main } from '../server/src/modules/audit/cli.ts';

process.exitCode = await main();
