import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/index.ts';
import { verifyAudit } from './verify.ts';

/**
 * `npm run audit:verify`: walks the audit log's hash chain in the database configured as for the server
 * (SQL_DSN, SQLITE_PATH). Exit codes: 0 intact, 1 broken (the rows and reasons are printed), 2 failed to run.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const config = loadConfig(env);
    const handle = await openDatabase(config.sqlDsn, config.sqlitePath);
    try {
      const r = await verifyAudit(handle);
      if (r.ok) {
        console.log(
          r.checked
            ? `audit log intact: ${r.checked} entries, seq ${r.firstSeq} to ${r.lastSeq}`
            : 'audit log is empty',
        );
        return 0;
      }
      console.error(`audit log BROKEN (${r.checked} entries read, seq ${r.firstSeq} to ${r.lastSeq}):`);
      for (const p of r.problems) console.error(`  seq ${p.seq}: ${p.reason}`);
      return 1;
    } finally {
      await handle.close();
    }
  } catch (err) {
    console.error(`audit verify failed: ${(err as Error).message}`);
    return 2;
  }
}
