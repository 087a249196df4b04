import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, Db, DialectName } from '../db/index.ts';

/** How a column of an account row changes: `+`/`-` a per-row amount, or `=` a value. */
export interface DeltaColumn {
  name: string;
  op: '+' | '-' | '=';
}

/** One table's set-based update: the rows are `[id, value of each column...]`. */
export interface DeltaTable {
  table: 'users' | 'tokens' | 'channels';
  columns: DeltaColumn[];
}

/** Rows per statement; SQLite's statements are padded to a power of two up to it, so few are ever prepared. */
const MAX_ROWS = 256;
/** An id no row has (ids start at 1): the padding rows of a SQLite statement match nothing. */
const NO_ID = -1;

const sqlCache = new Map<string, string>();

/**
 * The statement that moves `n` accounts of one table at once, per dialect: SQLite and PostgreSQL join a VALUES
 * list (`UPDATE ... FROM`), MySQL/MariaDB a derived table of `SELECT ... UNION ALL` (portable to both).
 */
export function deltaSql(dialect: DialectName, spec: DeltaTable, n: number): string {
  const key = `${dialect}:${spec.table}:${spec.columns.map((c) => c.op + c.name).join(',')}:${n}`;
  const hit = sqlCache.get(key);
  if (hit) return hit;
  const q = (id: string) => (dialect === 'mysql' ? `\`${id}\`` : `"${id}"`);
  const width = spec.columns.length + 1;
  let sql: string;
  if (dialect === 'mysql') {
    const names = ['id', ...spec.columns.map((_, i) => `c${i}`)];
    const first = `select ${names.map((name) => `? as ${name}`).join(', ')}`;
    const rest = ` union all select ${Array(width).fill('?').join(', ')}`;
    const set = spec.columns.map((c, i) => assignment(`t.${q(c.name)}`, `t.${q(c.name)}`, c.op, `v.c${i}`));
    sql = `update ${q(spec.table)} as t join (${first}${rest.repeat(n - 1)}) as v on t.id = v.id set ${set.join(', ')}`;
  } else if (dialect === 'postgres') {
    let p = 0;
    const tuple = () => `(${Array.from({ length: width }, () => `$${++p}::bigint`).join(', ')})`;
    const values = Array.from({ length: n }, tuple).join(', ');
    const names = ['id', ...spec.columns.map((_, i) => `c${i}`)].join(', ');
    const set = spec.columns.map((c, i) => assignment(q(c.name), `t.${q(c.name)}`, c.op, `v.c${i}`));
    sql = `update ${q(spec.table)} as t set ${set.join(', ')} from (values ${values}) as v(${names}) where t.id = v.id`;
  } else {
    const tuple = `(${Array(width).fill('?').join(', ')})`;
    const values = Array(n).fill(tuple).join(', ');
    const set = spec.columns.map((c, i) => assignment(q(c.name), q(c.name), c.op, `v.column${i + 2}`));
    sql = `update ${q(spec.table)} set ${set.join(', ')} from (values ${values}) as v where ${q(spec.table)}.id = v.column1`;
  }
  sqlCache.set(key, sql);
  return sql;
}

const assignment = (target: string, current: string, op: DeltaColumn['op'], value: string) =>
  op === '=' ? `${target} = ${value}` : `${target} = ${current} ${op} ${value}`;

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

const padTo = (n: number) => {
  let size = 1;
  while (size < n) size *= 2;
  return size;
};

/**
 * Applies `rows` to one table in a few set-based statements inside the writer's transaction `trx`: a flush's
 * cost no longer grows with a statement per account. On PostgreSQL and MySQL the rows are first locked in id
 * order (`SELECT ... FOR UPDATE`), as the one-row-at-a-time updates did, so two nodes flushing at once cannot
 * deadlock. On SQLite the statements are prepared once per size and reused.
 */
export async function applyDeltas(
  db: Db,
  trx: Kysely<Database>,
  spec: DeltaTable,
  rows: number[][],
): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  const width = spec.columns.length + 1;
  for (let i = 0; i < sorted.length; i += MAX_ROWS) {
    const chunk = sorted.slice(i, i + MAX_ROWS);
    if (db.sqlite) {
      const size = padTo(chunk.length);
      const params: number[] = new Array(size * width).fill(0);
      for (let r = 0; r < size; r++) {
        const row = chunk[r];
        for (let c = 0; c < width; c++) params[r * width + c] = row ? row[c] : c === 0 ? NO_ID : 0;
      }
      sqliteStatement(db.sqlite, deltaSql('sqlite', spec, size)).run(params);
      continue;
    }
    const ids = chunk.map((r) => r[0]);
    const q = (id: string) => (db.dialect === 'mysql' ? `\`${id}\`` : `"${id}"`);
    const ph = db.dialect === 'postgres' ? ids.map((_, k) => `$${k + 1}`) : ids.map(() => '?');
    await trx.executeQuery(
      CompiledQuery.raw(
        `select id from ${q(spec.table)} where id in (${ph.join(', ')}) order by id for update`,
        ids,
      ),
    );
    await trx.executeQuery(CompiledQuery.raw(deltaSql(db.dialect, spec, chunk.length), chunk.flat()));
  }
}
