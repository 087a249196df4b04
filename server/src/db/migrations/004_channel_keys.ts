import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `channels.key_status`: the status of each key of a multi-key channel that is not simply enabled, as JSON
 * keyed by the key's fingerprint ({"<fp>": {"status": 3, "reason": "...", "time": 1700000000}}), so keys can be
 * added, removed or reordered without losing what is known about the others.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('channels').addColumn('key_status', 'text').execute();
}
