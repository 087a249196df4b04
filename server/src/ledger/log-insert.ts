import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, Db, DialectName } from '../db/index.ts';
import type { LogsTable } from '../db/schema.ts';

/** One usage log row as the relay writes it (every column but the id). */
export type LogRow = Omit<LogsTable, 'id' | 'cost'> & { cost: number };

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
 * Inserts usage log rows. On SQLite, one prepared single-row statement kept per database and run per row:
 * better-sqlite3 is synchronous and in-process, so preparing a statement (what every query through the
 * builder does) costs more than running it. Elsewhere, statements of up to 200 rows whose SQL text is built
 * once per size. `trx` is the transaction to write in (on SQLite the one connection is already inside it).
 */
export async function insertLogs(target: Db, trx: Kysely<Database>, rows: LogRow[]): Promise<void> {
  const sqlite = target.sqlite;
  if (sqlite) {
    const insert = sqliteInsert(sqlite);
    const params: unknown[] = new Array(COLUMNS.length);
    const write = () => {
      for (const r of rows) {
        for (let i = 0; i < COLUMNS.length; i++) params[i] = r[COLUMNS[i]];
        insert.run(params);
      }
    };
    // Inside the writer's transaction when the logs share the main database; else one of its own.
    if (sqlite.inTransaction) write();
    else sqlite.transaction(write)();
    return;
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    for (const r of chunk) for (const c of COLUMNS) params.push(r[c]);
    await trx.executeQuery(CompiledQuery.raw(statement(target.dialect, chunk.length), params));
  }
}

type SqliteDb = NonNullable<Db['sqlite']>;
const prepared = new WeakMap<SqliteDb, ReturnType<SqliteDb['prepare']>>();

function sqliteInsert(sqlite: SqliteDb) {
  let stmt = prepared.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare(statement('sqlite', 1));
    prepared.set(sqlite, stmt);
  }
  return stmt;
}
