import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * The export's mark in `import_marks` (of the log database): every usage log row with an id up to `last_id` is
 * in `log_hourly` (and `quota_data`), none above it; `updated_at` is when that export ran. Rows above the mark
 * (written since, or imported later with old times) are what the next export and the stat read from the log.
 */
export const HOURLY_MARK = { source: 'hourly-export', entity: 'logs' } as const;

export interface HourlyMark {
  lastId: number;
  ranAt: number;
}

/** Undefined before the first export. */
export async function readHourlyMark(db: Kysely<Database>): Promise<HourlyMark | undefined> {
  const row = await db
    .selectFrom('import_marks')
    .select(['last_id', 'updated_at'])
    .where('source', '=', HOURLY_MARK.source)
    .where('entity', '=', HOURLY_MARK.entity)
    .executeTakeFirst();
  return row ? { lastId: Number(row.last_id), ranAt: Number(row.updated_at) } : undefined;
}

/** Moves the mark, inside the transaction that replaced the buckets (delete + insert: no dialect's upsert). */
export async function writeHourlyMark(trx: Kysely<Database>, mark: HourlyMark): Promise<void> {
  await trx
    .deleteFrom('import_marks')
    .where('source', '=', HOURLY_MARK.source)
    .where('entity', '=', HOURLY_MARK.entity)
    .execute();
  await trx
    .insertInto('import_marks')
    .values({ ...HOURLY_MARK, last_id: mark.lastId, updated_at: mark.ranAt })
    .execute();
}
