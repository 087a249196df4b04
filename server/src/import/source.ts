import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { type DialectName, parseMysqlDsn } from '../db/dialect.ts';
import { ImportRefused } from './refused.ts';

/** The database being imported from: opened read-only where the engine allows it, never migrated. */
export interface SourceDb {
  db: Kysely<any>;
  dialect: DialectName;
  /** The DSN with its password masked, for the report. */
  label: string;
  close(): Promise<void>;
}

/**
 * Which engine a `--from` value names, in the forms new-api's SQL_DSN and SQLITE_PATH take: postgres:// URLs,
 * MySQL as `user:pass@tcp(host:port)/db` or mysql:// URLs, anything else a SQLite file (an optional `local:`
 * or `sqlite:` prefix and GORM's `?_busy_timeout=5000` style parameters are dropped).
 */
export function sourceKind(from: string): { dialect: DialectName; target: string } {
  const v = from.trim();
  if (/^postgres(ql)?:\/\//i.test(v)) return { dialect: 'postgres', target: v };
  if (/^(mysql|mariadb):\/\//i.test(v) || /@(tcp|unix)\(/.test(v) || /^[^/\s]*@\//.test(v))
    return { dialect: 'mysql', target: v };
  const path = v.replace(/^(local|sqlite|file):(\/\/)?/i, '').replace(/\?.*$/, '');
  return { dialect: 'sqlite', target: path };
}

/** The DSN with any password replaced by `***`. */
export function maskDsn(from: string): string {
  return from.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@').replace(/^([^:/@]*:)[^@]*@(tcp|unix)\(/, '$1***@$2(');
}

export async function openSource(from: string): Promise<SourceDb> {
  if (!from.trim()) throw new ImportRefused('--from is required: the new-api or one-api database to import');
  const { dialect, target } = sourceKind(from);
  const label = maskDsn(from.trim());
  let db: Kysely<any>;
  try {
    db = await connect(dialect, target);
  } catch (err) {
    throw new ImportRefused(`cannot open the source database ${label}: ${(err as Error).message}`);
  }
  try {
    await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
  } catch (err) {
    await db.destroy().catch(() => {});
    throw new ImportRefused(`cannot reach the source database ${label}: ${(err as Error).message}`);
  }
  return { db, dialect, label, close: () => db.destroy() };
}

async function connect(dialect: DialectName, target: string): Promise<Kysely<any>> {
  if (dialect === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const sqlite = new SQLite(target, { readonly: true, fileMustExist: true });
    return new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
  }
  if (dialect === 'postgres') {
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: target, max: 2, connectionTimeoutMillis: 5000 });
    pool.on('error', () => {});
    return new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  }
  const mysql = await import('mysql2');
  const pool = mysql.createPool({
    ...parseMysqlDsn(target),
    connectionLimit: 2,
    connectTimeout: 5000,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4',
  });
  return new Kysely<any>({ dialect: new MysqlDialect({ pool }) });
}
