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

/** Rows per prepared SQLite statement (20 parameters each: 1,280, far under SQLite's limit). */
const SQLITE_ROWS = 64;
/** Time of inserts between two yields to the event loop, in ms: the flush never holds the loop longer. */
const SLICE_MS = 4;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Inserts usage log rows inside the transaction `trx` (on SQLite the one connection is already inside it).
 * On SQLite, prepared statements of 64 rows and of one row, kept per database and run directly (better-sqlite3
 * is synchronous and in-process, so preparing a statement, what every query through the builder does, costs
 * more than running it); every 4 ms of inserts the flush yields to the event loop (with the transaction open:
 * SQLite's one connection is held by it, so nothing else writes in between) so requests keep being served.
 * Elsewhere, statements of up to 200 rows whose SQL text is built once per size.
 */
export async function insertLogs(target: Db, trx: Kysely<Database>, rows: LogRow[]): Promise<void> {
  const sqlite = target.sqlite;
  if (sqlite) {
    if (!sqlite.inTransaction) throw new Error('usage log rows are inserted inside a transaction');
    let sliceStart = performance.now();
    for (let i = 0; i < rows.length; ) {
      const n = rows.length - i >= SQLITE_ROWS ? SQLITE_ROWS : 1;
      sqliteInsert(sqlite, n).run(paramsOf(rows, i, n));
      i += n;
      if (i < rows.length && performance.now() - sliceStart > SLICE_MS) {
        await tick();
        sliceStart = performance.now();
      }
    }
    return;
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const n = Math.min(ROWS_PER_STATEMENT, rows.length - i);
    await trx.executeQuery(CompiledQuery.raw(statement(target.dialect, n), paramsOf(rows, i, n)));
  }
}

/** The parameters of rows [from, from + n), column by column. */
function paramsOf(rows: LogRow[], from: number, n: number): unknown[] {
  const width = COLUMNS.length;
  const params: unknown[] = new Array(n * width);
  for (let r = 0; r < n; r++) {
    const row = rows[from + r];
    for (let c = 0; c < width; c++) params[r * width + c] = row[COLUMNS[c]];
  }
  return params;
}

type SqliteDb = NonNullable<Db['sqlite']>;
const prepared = new WeakMap<SqliteDb, Map<number, ReturnType<SqliteDb['prepare']>>>();

function sqliteInsert(sqlite: SqliteDb, n: number) {
  let bySize = prepared.get(sqlite);
  if (!bySize) {
    bySize = new Map();
    prepared.set(sqlite, bySize);
  }
  let stmt = bySize.get(n);
  if (!stmt) {
    stmt = sqlite.prepare(statement('sqlite', n));
    bySize.set(n, stmt);
  }
  return stmt;
}
