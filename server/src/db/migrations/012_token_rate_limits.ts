import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * `tokens.rpm_limit` and `tokens.tpm_limit`: the requests and tokens a token may use per minute (0 = no limit),
 * checked by the relay next to the group and model limits of the option GroupModelRateLimit.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  for (const column of ['rpm_limit', 'tpm_limit'])
    await db.schema
      .alterTable('tokens')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
}
