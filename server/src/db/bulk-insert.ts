import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, Db, DialectName } from './index.ts';

/** Rows per prepared SQLite statement (at 20 columns, 1,280 parameters: far under SQLite's limit). */
const SQLITE_ROWS = 64;
/** Rows per statement elsewhere. */
const ROWS_PER_STATEMENT = 200;
/** Time of inserts between two yields to the event loop, in ms. */
const SLICE_MS = 4;

const sqlCache = new Map<string, string>();
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `INSERT INTO table (...) VALUES (...), ...` for n rows in the dialect's quoting and placeholder style. */
export function insertSql(
  dialect: DialectName,
  table: string,
  columns: readonly string[],
  n: number,
): string {
  const key = `${dialect}:${table}:${columns.join(',')}:${n}`;
  const hit = sqlCache.get(key);
  if (hit) return hit;
  const q = (id: string) => (dialect === 'mysql' ? `\`${id}\`` : `"${id}"`);
  let p = 0;
  const ph = () => (dialect === 'postgres' ? `$${++p}` : '?');
  const tuples = Array.from({ length: n }, () => `(${columns.map(ph).join(', ')})`);
  const sql = `insert into ${q(table)} (${columns.map(q).join(', ')}) values ${tuples.join(', ')}`;
  sqlCache.set(key, sql);
  return sql;
}

/** A row to insert: an object with the columns as keys, or its values in the columns' order. */
type InsertRow = Readonly<Record<string, unknown>> | readonly unknown[];

/** The parameters of rows [from, from + n), column by column. */
function paramsOf(
  rows: readonly InsertRow[],
  columns: readonly string[],
  from: number,
  n: number,
): unknown[] {
  const width = columns.length;
  const params: unknown[] = new Array(n * width);
  for (let r = 0; r < n; r++) {
    const row = rows[from + r];
    if (Array.isArray(row)) for (let c = 0; c < width; c++) params[r * width + c] = row[c];
    else for (let c = 0; c < width; c++) params[r * width + c] = (row as Record<string, unknown>)[columns[c]];
  }
  return params;
}

type SqliteDb = NonNullable<Db['sqlite']>;
const prepared = new WeakMap<SqliteDb, Map<string, ReturnType<SqliteDb['prepare']>>>();

function sqliteStatement(sqlite: SqliteDb, sql: string) {
  let byText = prepared.get(sqlite);
  if (!byText) {
    byText = new Map();
    prepared.set(sqlite, byText);
  }
  let stmt = byText.get(sql);
  if (!stmt) {
    stmt = sqlite.prepare(sql);
    byText.set(sql, stmt);
  }
  return stmt;
}

/**
 * Inserts `rows` into `table` inside the transaction `trx` (on SQLite the one connection is already inside it).
 * On SQLite, prepared statements of 64 rows and of one row, kept per database and run directly (better-sqlite3
 * is synchronous and in-process: preparing a statement, what every query through the builder does, costs more
 * than running it), and every 4 ms of inserts a turn of the event loop, the transaction still open (it holds
 * SQLite's one connection, so nothing else writes in between), so requests keep being served. Elsewhere,
 * statements of up to 200 rows whose SQL text is built once per size.
 */
export async function bulkInsert(
  target: Db,
  trx: Kysely<Database>,
  table: string,
  columns: readonly string[],
  rows: readonly InsertRow[],
): Promise<void> {
  const sqlite = target.sqlite;
  if (sqlite) {
    if (!sqlite.inTransaction) throw new Error(`rows of ${table} are inserted inside a transaction`);
    let sliceStart = performance.now();
    for (let i = 0; i < rows.length; ) {
      const n = rows.length - i >= SQLITE_ROWS ? SQLITE_ROWS : 1;
      sqliteStatement(sqlite, insertSql('sqlite', table, columns, n)).run(paramsOf(rows, columns, i, n));
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
    await trx.executeQuery(
      CompiledQuery.raw(insertSql(target.dialect, table, columns, n), paramsOf(rows, columns, i, n)),
    );
  }
}
