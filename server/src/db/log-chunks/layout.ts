import type { Database as Sqlite } from 'better-sqlite3';

/**
 * The usage log on SQLite, stored in chunks (README, Usage log storage):
 * - `logs_live` receives every new row. It carries one index, (created_at, id), which rows enter at its right
 *   edge, so writing a row touches the same few pages whoever it belongs to.
 * - When it holds `LOG_CHUNK_ROWS` rows it is renamed `logs_c<n>` (closed) and a fresh `logs_live` starts; the
 *   closed chunk's other indexes are then built in one sort each (rollover.ts), at a tenth of the cost of
 *   keeping them up to date row by row.
 * - `logs` is a view over all chunks and the live table (view.ts), so every query reads it as one table; its
 *   INSTEAD OF triggers route the occasional single-row insert, update or delete.
 * PostgreSQL and MySQL keep one `logs` table.
 */
export const LIVE = 'logs_live';
export const VIEW = 'logs';
export const DEFAULT_LOG_CHUNK_ROWS = 500_000;

const CHUNK = /^logs_c(\d+)$/;
export const chunkName = (n: number) => `logs_c${n}`;

/** Indexes of a closed chunk, by a short name and columns: the ones the console's queries use (migrations 001, 007). */
const SUMS = ['quota', 'prompt_tokens', 'completion_tokens'];
export const CHUNK_INDEXES: ReadonlyArray<[string, string[]]> = [
  ['created', ['created_at', 'id']],
  ['user_created', ['user_id', 'created_at']],
  ['token_created', ['token_name', 'created_at']],
  ['model_created', ['model_name', 'created_at']],
  ['channel_created', ['channel_id', 'created_at']],
  ['username_created', ['username', 'created_at']],
  ['type_created_sums', ['type', 'created_at', ...SUMS]],
  ['user_type_created', ['user_id', 'type', 'created_at', ...SUMS]],
  ['username_type_created', ['username', 'type', 'created_at', ...SUMS]],
  ['user_model_created', ['user_id', 'model_name', 'created_at']],
  ['username_model_created', ['username', 'model_name', 'created_at']],
  ['model_type_created', ['model_name', 'type', 'created_at']],
  ['channel_model_created', ['channel_id', 'model_name', 'created_at']],
  ['group_created', ['group', 'created_at']],
];

export const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;

/** The closed chunks' numbers, oldest first. */
export function chunkNumbers(sqlite: Sqlite): number[] {
  const rows = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'logs_c[0-9]*'`)
    .all() as Array<{ name: string }>;
  return rows
    .map((r) => CHUNK.exec(r.name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** The closed chunks' table names, oldest first. */
export const chunkTables = (sqlite: Sqlite) => chunkNumbers(sqlite).map(chunkName);

export function objectType(sqlite: Sqlite, name: string): string | undefined {
  const row = sqlite.prepare('SELECT type FROM sqlite_master WHERE name = ?').get(name) as
    | { type: string }
    | undefined;
  return row?.type;
}

/** Columns of `table`'s indexes, each as its column list joined by commas. */
function indexedColumnSets(sqlite: Sqlite, table: string): Set<string> {
  const out = new Set<string>();
  const list = sqlite.prepare(`PRAGMA index_list(${quote(table)})`).all() as Array<{ name: string }>;
  for (const { name } of list) {
    const cols = sqlite.prepare(`PRAGMA index_info(${quote(name)})`).all() as Array<{ name: string }>;
    out.add(cols.map((c) => c.name).join(','));
  }
  return out;
}

/**
 * Builds the indexes of CHUNK_INDEXES that `table` lacks (by columns, whatever their names), one statement each;
 * returns how many were built. A chunk whose build was cut short (a crash) gets the rest at the next start.
 */
export function buildChunkIndexes(sqlite: Sqlite, table: string, only?: string[]): number {
  const have = indexedColumnSets(sqlite, table);
  let built = 0;
  for (const [short, cols] of CHUNK_INDEXES) {
    if (only && !only.includes(short)) continue;
    if (have.has(cols.join(','))) continue;
    sqlite.exec(
      `CREATE INDEX IF NOT EXISTS ${quote(`idx_${table}_${short}`)} ON ${quote(table)} (${cols.map(quote).join(', ')})`,
    );
    built++;
  }
  return built;
}
