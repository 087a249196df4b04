import type { Kysely } from 'kysely';
import { bulkInsert } from '../db/bulk-insert.ts';
import type { Database, Db } from '../db/index.ts';
import { LIVE } from '../db/log-chunks/layout.ts';
import type { LogsTable } from '../db/schema.ts';

/** One usage log row as the relay writes it (every column but the id). */
export type LogRow = Omit<LogsTable, 'id' | 'cost'> & { cost: number };

export const LOG_COLUMNS: ReadonlyArray<keyof LogRow & string> = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'token_id',
  'model_name',
  'quota',
  'cost',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'first_time',
  'is_stream',
  'channel_id',
  'group',
  'ip',
  'request_id',
  'other',
];

/**
 * Inserts usage log rows inside the transaction `trx` (on SQLite into the live table, db/log-chunks/): on SQLite 64 rows per reused prepared statement, with a
 * turn of the event loop every 4 ms of inserts (db/bulk-insert.ts). A row is an object, or its values in
 * LOG_COLUMNS order (as ledger/packed-logs.ts unpacks them).
 */
export const insertLogs = (
  target: Db,
  trx: Kysely<Database>,
  rows: readonly (LogRow | readonly unknown[])[],
): Promise<void> => bulkInsert(target, trx, target.sqlite ? LIVE : 'logs', LOG_COLUMNS, rows);
