import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** `tokens.response_cache`: 1 turns the response cache on for the token's requests (relay/response-cache/). */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('tokens')
    .addColumn('response_cache', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
