import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Periodic budgets on tokens and users (ledger/budget/): an amount of quota per period beside the lifetime
 * quota. Per row:
 *   budget_quota        - the amount per period; 0 = no budget,
 *   budget_period       - daily, weekly, monthly or custom ('' = none),
 *   budget_period_days  - the length of a custom period in days,
 *   budget_reset_time   - one renewal as a local date-time "YYYY-MM-DD HH:mm" in the server's time zone; the
 *                         others follow from it by the period,
 *   budget_used         - what was spent in the period that ends at budget_reset_at,
 *   budget_reset_at     - unix seconds when that period ends (0 = no budget). The writer and the reset job move
 *                         it forward with a compare-and-set on its old value, so a renewal happens once.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  for (const table of ['tokens', 'users']) {
    const columns: Array<[string, 'bigint' | 'integer' | 'varchar(16)' | 'varchar(20)', number | string]> = [
      ['budget_quota', 'bigint', 0],
      ['budget_period', 'varchar(16)', ''],
      ['budget_period_days', 'integer', 0],
      ['budget_reset_time', 'varchar(20)', ''],
      ['budget_used', 'bigint', 0],
      ['budget_reset_at', 'bigint', 0],
    ];
    for (const [name, type, fallback] of columns)
      await db.schema
        .alterTable(table)
        .addColumn(name, type, (c) => c.notNull().defaultTo(fallback))
        .execute();
    // The reset job reads the rows whose period has ended: budget_reset_at in (0, now].
    let index = db.schema.createIndex(`idx_${table}_budget_reset_at`).on(table).column('budget_reset_at');
    if (dialect !== 'mysql') index = index.ifNotExists();
    await index.execute();
  }
}
