import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * Usage-log and dashboard indexes for filters used together, measured on 5 million rows (`npm run bench:logs`).
 *
 * With one index per column, two filters that each match many rows (a heavy user's errors, one model on one
 * channel) made the engine walk one column's whole range and visit the table row by row for the other, up to
 * a second per page on SQLite. These put the pairs the console sends together in one index, so the page and its
 * capped count walk matching entries only:
 * - user (self pages: user_id; admin filter: username) with type or model;
 * - model with type (errors of a model) and channel with model;
 * - group alone, which had no index.
 * The (…, type, created_at) indexes end with the three summed columns so the stat call (consumption sums of a
 * user, or of everyone over a time range) reads the index only; the type index of 001 is replaced for that.
 *
 * On an existing large table the indexes are built at the first start (minutes for tens of millions of rows on
 * PostgreSQL, writes to `logs` wait meanwhile). An operator can build them beforehand with
 * CREATE INDEX CONCURRENTLY under the same names; the migration then skips them.
 */
const SUMS = ['quota', 'prompt_tokens', 'completion_tokens'];

const INDEXES: Array<[string, string, string[]]> = [
  ['logs', 'idx_logs_type_created_sums', ['type', 'created_at', ...SUMS]],
  ['logs', 'idx_logs_user_type_created', ['user_id', 'type', 'created_at', ...SUMS]],
  ['logs', 'idx_logs_username_type_created', ['username', 'type', 'created_at', ...SUMS]],
  ['logs', 'idx_logs_user_model_created', ['user_id', 'model_name', 'created_at']],
  ['logs', 'idx_logs_username_model_created', ['username', 'model_name', 'created_at']],
  ['logs', 'idx_logs_model_type_created', ['model_name', 'type', 'created_at']],
  ['logs', 'idx_logs_channel_model_created', ['channel_id', 'model_name', 'created_at']],
  ['logs', 'idx_logs_group_created', ['group', 'created_at']],
  // Dashboard: the admin's username filter, and the all-users view summed per model and hour from the index.
  ['quota_data', 'idx_qd_username_created', ['username', 'created_at']],
  ['quota_data', 'idx_qd_created_model_sums', ['created_at', 'model_name', 'quota', 'count', 'token_used']],
];

export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  for (const [table, name, columns] of INDEXES) {
    const b = db.schema.createIndex(name).on(table).columns(columns);
    // MySQL has no CREATE INDEX IF NOT EXISTS; migrations run once so plain create is safe there.
    await (dialect === 'mysql' ? b : b.ifNotExists()).execute();
  }
  const drop = db.schema.dropIndex('idx_logs_type_created');
  await (dialect === 'mysql' ? drop.on('logs') : drop.ifExists()).execute();
  // Where statistics exist, SQLite's planner takes an index it has none for as highly selective and would
  // prefer these three-column indexes (then sort) even for one filter. A sampled ANALYZE (analysis_limit) is
  // not enough: it sees too few rows to tell a 5-value column from a 1,000-value one and picks the type index
  // for "model + type". A full one costs about 4 s per million rows, once.
  if (dialect === 'sqlite') {
    await sql`ANALYZE logs`.execute(db);
    await sql`ANALYZE quota_data`.execute(db);
  }
}
