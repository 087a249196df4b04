import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  MysqlDialect,
  PostgresDialect,
} from 'kysely';
import { DEFAULT_SQLITE_CACHE_MB } from '../config.ts';
import { type DialectName, dialectOf, parseMysqlDsn } from './dialect.ts';
import { setUpLogChunks } from './log-chunks/rollover.ts';
import { ensureLogPartitions } from './log-partitions/index.ts';
import * as m001 from './migrations/001_init.ts';
import * as m002 from './migrations/002_sessions.ts';
import * as m003 from './migrations/003_username_key.ts';
import * as m004 from './migrations/004_channel_keys.ts';
import * as m005 from './migrations/005_midjourney_tasks.ts';
import * as m006 from './migrations/006_import_marks.ts';
import * as m007 from './migrations/007_log_query_indexes.ts';
import * as m008 from './migrations/008_suno_tasks.ts';
import * as m009 from './migrations/009_log_hourly.ts';
import * as m010 from './migrations/010_budgets.ts';
import * as m011 from './migrations/011_log_cost.ts';
import * as m012 from './migrations/012_token_rate_limits.ts';
import * as m013 from './migrations/013_audit_log.ts';
import * as m014 from './migrations/014_token_response_cache.ts';
import * as m015 from './migrations/015_channel_compat.ts';
import * as m016 from './migrations/016_log_extent.ts';
import * as m017 from './migrations/017_log_partitions.ts';
import * as m018 from './migrations/018_log_model_type_group.ts';
import type { Database } from './schema.ts';
import { SharedFileSqliteDialect } from './sqlite-dialect.ts';

export type { DialectName } from './dialect.ts';
export type { Database } from './schema.ts';

export interface Db {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The better-sqlite3 handle under `db` on SQLite, for the few writes that reuse prepared statements. */
  sqlite?: import('better-sqlite3').Database;
  /** The SQLite file (or ':memory:') under `sqlite`. */
  path?: string;
  /** On SQLite, how many usage log rows the live table takes before it is closed as a chunk (LOG_CHUNK_ROWS). */
  logChunkRows?: number;
  close(): Promise<void>;
}

const MIGRATIONS: Record<string, { up(db: Kysely<any>, dialect: DialectName): Promise<void> }> = {
  '001_init': m001,
  '002_sessions': m002,
  '003_username_key': m003,
  '004_channel_keys': m004,
  '005_midjourney_tasks': m005,
  '006_import_marks': m006,
  '007_log_query_indexes': m007,
  '008_suno_tasks': m008,
  '009_log_hourly': m009,
  '010_budgets': m010,
  '011_log_cost': m011,
  '012_token_rate_limits': m012,
  '013_audit_log': m013,
  '014_token_response_cache': m014,
  '015_channel_compat': m015,
  '016_log_extent': m016,
  '017_log_partitions': m017,
  '018_log_model_type_group': m018,
};

/**
 * Opens the database a DSN names (empty: SQLite at sqlitePath) without migrating it. `sqliteCacheMb` is
 * SQLite's page cache (SQLITE_CACHE_MB).
 */
export async function openDatabase(
  dsn: string,
  sqlitePath: string,
  sqliteCacheMb = DEFAULT_SQLITE_CACHE_MB,
): Promise<Db> {
  const dialect = dialectOf(dsn);
  if (dialect === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const path = dsn.startsWith('local:') ? dsn.slice('local:'.length) : sqlitePath;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // 2 MB by default (SQLite's own) instead of better-sqlite3's 16 MB: with few users the relay's log
    // rows land on each index's newest pages and the 14 MB are a tenth of the process's peak. With many users
    // each row lands on a different page of every per-user index; there a larger cache keeps those pages
    // instead of reading and rewriting them (README, Relay performance).
    sqlite.pragma(`cache_size = -${Math.round(sqliteCacheMb * 1024)}`);
    // From here on a statement waiting for the write lock waits on a timer, not on this thread (sqlite-dialect.ts).
    sqlite.pragma('busy_timeout = 0');
    const db = new Kysely<Database>({ dialect: new SharedFileSqliteDialect(sqlite) });
    return { db, dialect, sqlite, path, close: () => db.destroy() };
  }
  if (dialect === 'postgres') {
    const pg = await import('pg');
    // BIGINT and NUMERIC come back as strings by default; quota fits a JS number exactly.
    pg.default.types.setTypeParser(20, (v) => Number(v));
    pg.default.types.setTypeParser(1700, (v) => Number(v));
    const pool = new pg.default.Pool({ connectionString: dsn, max: 20 });
    // A connection cut by the server (restart, admin termination) emits 'error': an idle one on the pool, one
    // checked out between two queries (a transaction awaiting) on the client itself. Without a listener Node
    // would crash the process. The query in flight, if any, fails with the error; the pool drops a broken client
    // when it comes back and the next query opens a fresh one.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect, close: () => db.destroy() };
  }
  const mysql = await import('mysql2');
  const conn = parseMysqlDsn(dsn);
  const pool = mysql.createPool({
    ...conn,
    connectionLimit: 20,
    decimalNumbers: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return { db, dialect, close: () => db.destroy() };
}

/**
 * Migrates to the latest schema, or only up to the migration `upTo` names (an upgrade's starting point in tests),
 * then sets up the usage log's storage: SQLite's chunks, or the weekly partitions due on PostgreSQL and MySQL.
 */
export async function migrate(handle: Db, upTo?: string): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS))
        out[name] = { up: (db) => m.up(db, handle.dialect) };
      return out;
    },
  };
  const migrator = new Migrator({ db: handle.db, provider });
  const { error } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(String(error));
  if (upTo) return;
  if (handle.sqlite) setUpLogChunks(handle.sqlite);
  // A week is made ahead, and the retention pass adds the next ones hourly (and says when it cannot).
  else await ensureLogPartitions(handle).catch(() => {});
}
