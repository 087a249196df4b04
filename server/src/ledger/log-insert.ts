import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, DialectName } from '../db/index.ts';
import type { LogsTable } from '../db/schema.ts';

/** One usage log row as the relay writes it (every column but the id). */
export type LogRow = Omit<LogsTable, 'id'>;

const COLUMNS: Array<keyof LogRow> = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'token_id',
  'model_name',
  'quota',
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

const ROWS_PER_STATEMENT = 200;
const sqlCache = new Map<string, string>();

/** `INSERT INTO logs (...) VALUES (...), ...` for n rows in the dialect's quoting and placeholder style. */
function statement(dialect: DialectName, n: number): string {
  const key = `${dialect}:${n}`;
  const hit = sqlCache.get(key);
  if (hit) return hit;
  const q = (id: string) => (dialect === 'mysql' ? `\`${id}\`` : `"${id}"`);
  let p = 0;
  const ph = () => (dialect === 'postgres' ? `$${++p}` : '?');
  const tuples = Array.from({ length: n }, () => `(${COLUMNS.map(ph).join(', ')})`);
  const sql = `insert into ${q('logs')} (${COLUMNS.map(q).join(', ')}) values ${tuples.join(', ')}`;
  sqlCache.set(key, sql);
  return sql;
}

/**
 * Inserts usage log rows in statements of up to 200 rows. The SQL text is built once per size and reused:
 * the writer inserts thousands of rows a second under load, and compiling each batch through the query
 * builder cost more than executing it.
 */
export async function insertLogs(db: Kysely<Database>, dialect: DialectName, rows: LogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const r of chunk) for (const c of COLUMNS) params.push(r[c]);
    await db.executeQuery(CompiledQuery.raw(statement(dialect, chunk.length), params));
  }
}
