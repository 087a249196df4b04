import type { Kysely } from 'kysely';
import { bulkInsert } from '../../db/bulk-insert.ts';
import type { Database, Db } from '../../db/index.ts';

const HOUR = 3600;
/** Buckets per transaction in the first build. */
const FIRST_BUILD_CHUNK = 5000;

/** A bucket table of the dashboard export: both key their buckets by `created_at`, the hour. */
export interface BucketTable<B> {
  name: 'quota_data' | 'log_hourly';
  columns: readonly (keyof B & string)[];
}

/**
 * Writes one bucket table's buckets from `since` on for the dashboard export (export.ts), replacing those rows.
 * A later run (there is a mark) replaces them in one transaction at the end. The first build (no mark yet) covers
 * the whole log, hundreds of thousands of buckets per table: it commits every FIRST_BUILD_CHUNK buckets, since one
 * commit of them all is seconds of SQLite's main-thread time that cannot be sliced, and it writes the buckets of
 * each hour as soon as that hour has been read (`complete`) instead of holding every bucket until the end: held,
 * they were the process's peak of heap, and V8 kept a heap of that size long after. Buckets go in oldest first,
 * so a build cut short leaves whole hours up to its last bucket: the next run restarts quota_data an hour before
 * it (export.ts, lastBucket) and, finding no mark, rebuilds log_hourly whole. `last` runs in the final
 * transaction: the mark, which the readers that need every bucket (logs/stat-hourly.ts, margin) wait for.
 */
export function bucketWriter<B extends { created_at: number | bigint }>(
  target: Db,
  table: BucketTable<B>,
  since: number,
  firstBuild: boolean,
  last?: (trx: Kysely<Database>) => Promise<void>,
) {
  const done: B[] = [];
  let replaced = false;
  let written = 0;
  const write = async (part: B[], end?: typeof last) => {
    const first = !replaced;
    await target.db.transaction().execute(async (trx) => {
      if (first)
        await trx
          .deleteFrom(table.name as 'quota_data')
          .where('created_at', '>=', since)
          .execute();
      await bulkInsert(target, trx, table.name, table.columns, part);
      await end?.(trx);
    });
    replaced = true;
    written += part.length;
  };
  return {
    /**
     * On the first build, moves the buckets of the hours wholly before `to` (every row before `to` has been read)
     * out of `buckets` and writes them by whole chunks, oldest first. Slices come in time order, so the buckets
     * completed here are all later than those completed before.
     */
    async complete(buckets: Map<string, B>, to: number): Promise<void> {
      if (!firstBuild) return;
      const ready: B[] = [];
      for (const [key, b] of buckets) {
        if (Number(b.created_at) + HOUR > to) continue;
        ready.push(b);
        buckets.delete(key);
      }
      ready.sort((a, b) => Number(a.created_at) - Number(b.created_at));
      for (const b of ready) done.push(b);
      while (done.length >= FIRST_BUILD_CHUNK) await write(done.splice(0, FIRST_BUILD_CHUNK));
    },
    /** Writes the rest of `buckets`, and `last` with the final part; returns how many buckets were written. */
    async finish(buckets: Map<string, B>): Promise<number> {
      const rest = [...buckets.values()].sort((a, b) => Number(a.created_at) - Number(b.created_at));
      buckets.clear();
      for (const b of rest) done.push(b);
      if (firstBuild) while (done.length > FIRST_BUILD_CHUNK) await write(done.splice(0, FIRST_BUILD_CHUNK));
      await write(done.splice(0), last);
      return written;
    },
  };
}
