import type { Kysely } from 'kysely';
import { bumpSequence, commitRows, errorText, type ImportJob, inSavepoint, sourceBatches } from './job.ts';
import { str } from './values.ts';

/** A row ready for the target: its source id is kept, and `natural` is unique here too. */
export type PlannedRow = { id: number } & Record<string, unknown>;

export interface PlainTable {
  /** The report's name for the rows. */
  entity: string;
  table: 'tokens' | 'redemptions' | 'top_ups';
  /** The other unique column (token key, redemption code, trade number). */
  natural: 'key' | 'trade_no';
  /** "token", "code"...: how the report names one row. */
  noun: string;
  /** The target row, or why the source row cannot be imported. */
  plan(job: ImportJob, row: Record<string, unknown>): PlannedRow | string;
}

/**
 * The import of a table whose rows copy over one for one, keeping their ids: a row already here (same id, same
 * natural key) is left alone, one whose id or natural key another row holds is listed and skipped, the others
 * go in batch by batch. Returns how many rows were written.
 */
export async function importPlainTable(job: ImportJob, spec: PlainTable): Promise<number> {
  const e = job.report.entity(spec.entity);
  const db = job.db as unknown as Kysely<any>;
  const { table, natural, noun } = spec;
  for await (const batch of sourceBatches(job, table)) {
    e.read += batch.length;
    const planned: PlannedRow[] = [];
    for (const r of batch) {
      const p = spec.plan(job, r);
      if (typeof p === 'string') e.skip(str(r.id), p);
      else planned.push(p);
    }
    const fresh: PlannedRow[] = [];
    if (planned.length) {
      const existing = (await db
        .selectFrom(table)
        .select(['id', natural])
        .where((eb) =>
          eb.or([
            eb(
              'id',
              'in',
              planned.map((p) => p.id),
            ),
            eb(
              natural,
              'in',
              planned.map((p) => p[natural]),
            ),
          ]),
        )
        .execute()) as Array<{ id: unknown } & Record<string, unknown>>;
      for (const p of planned) {
        const byId = existing.find((x) => Number(x.id) === p.id);
        const byNatural = existing.find((x) => x[natural] === p[natural]);
        if (byId && byId[natural] === p[natural]) e.unchanged++;
        else if (byId) e.skip(p.id, `id ${p.id} belongs to another ${noun} here`);
        else if (byNatural)
          e.skip(
            p.id,
            `the same ${natural === 'key' ? 'key' : 'trade number'} belongs to ${noun} ${byNatural.id} here`,
          );
        else fresh.push(p);
      }
    }
    if (job.dryRun) {
      e.imported += fresh.length;
      continue;
    }
    const written = await commitRows<PlannedRow, Kysely<any>>(
      fresh,
      (fn) => inSavepoint(job, fn as (db: unknown) => Promise<void>),
      async (trx, row) => {
        await trx.insertInto(table).values(row).execute();
      },
      (row, err) => e.skip(row.id, `could not be written: ${errorText(err)}`),
    );
    e.imported += written.length;
  }
  if (!job.dryRun && e.imported) await bumpSequence(job, job.db, table);
  return e.imported;
}
