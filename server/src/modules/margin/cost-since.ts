import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The mark migration 011 wrote in the log database: when usage log rows began to carry their upstream cost. */
const COST_MARK = { source: 'log-cost', entity: 'logs' } as const;

/**
 * Unix seconds from which rows record their cost (0 when the mark is missing: every row counts as costed). Rows
 * and hourly buckets before it have cost 0 because nothing was recorded, not because the upstream was free.
 */
export async function readCostSince(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('import_marks')
    .select('updated_at')
    .where('source', '=', COST_MARK.source)
    .where('entity', '=', COST_MARK.entity)
    .executeTakeFirst();
  return Number(row?.updated_at ?? 0);
}
