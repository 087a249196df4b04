import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASES } from './databases.ts';

/**
 * new-api- and one-api-shaped source databases for the import tests: the tables from
 * fixtures/import/<flavor>.<engine>.sql (written from those projects' GORM models), filled by the caller.
 */
export type Flavor = 'new-api' | 'one-api';
export type SourceEngine = 'sqlite' | 'mysql';

export interface SourceDatabase {
  /** The DSN as an operator would pass it to `--from`. */
  from: string;
  insert(table: string, row: Record<string, unknown>): Promise<void>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const fixture = (flavor: Flavor, engine: SourceEngine) =>
  readFileSync(new URL(`../fixtures/import/${flavor}.${engine}.sql`, import.meta.url), 'utf8')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean);

const insertSql = (table: string, row: Record<string, unknown>) => {
  const cols = Object.keys(row);
  return `INSERT INTO \`${table}\` (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
};

/** An empty source database of the flavor's shape (no tables at all with `flavor: 'empty'`). */
export async function makeSource(flavor: Flavor | 'empty', engine: SourceEngine): Promise<SourceDatabase> {
  const statements = flavor === 'empty' ? [] : fixture(flavor, engine);
  if (engine === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const path = join(mkdtempSync(join(tmpdir(), 'gw-import-')), `${flavor}.db`);
    const db = new SQLite(path);
    for (const s of statements) db.exec(s);
    return {
      // new-api's SQLITE_PATH carries GORM parameters; the importer drops them.
      from: `${path}?_busy_timeout=5000`,
      insert: async (table, row) => {
        db.prepare(insertSql(table, row)).run(
          ...Object.values(row).map((v) => (typeof v === 'boolean' ? Number(v) : v)),
        );
      },
      exec: async (sql) => void db.exec(sql),
      close: async () => void db.close(),
    };
  }
  const engineDb = DATABASES.find((d) => d.name === 'mysql');
  if (!engineDb) throw new Error('no MySQL test database');
  const made = await engineDb.create();
  const mysql = await import('mysql2/promise');
  const u = new URL(made.dsn);
  const conn = await mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
  });
  for (const s of statements) await conn.query(s);
  const auth = `${decodeURIComponent(u.username || 'root')}${u.password ? `:${decodeURIComponent(u.password)}` : ''}`;
  return {
    // The Go driver's DSN form, as new-api's SQL_DSN takes it.
    from: `${auth}@tcp(${u.hostname}:${u.port || 3306})${u.pathname}?charset=utf8mb4&parseTime=True&loc=Local`,
    insert: async (table, row) => {
      await conn.execute(insertSql(table, row), Object.values(row) as never[]);
    },
    exec: async (sql) => void (await conn.query(sql)),
    close: async () => {
      await conn.end();
      await made.drop();
    },
  };
}
