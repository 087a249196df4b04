import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The databases a store test runs against: SQLite always; PostgreSQL and MariaDB/MySQL when reachable.
 * In CI (CI=true) an unreachable server fails the run instead of skipping.
 * Addresses: TEST_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), TEST_MYSQL_URL (mysql://root@127.0.0.1:3306/test).
 *
 * Which engines a run uses is the tier's choice: TEST_ENGINES (a comma list, e.g. `sqlite`) keeps only those;
 * the stores tier leaves it unset and gets all three, the other tiers set `sqlite` (vitest.config.ts).
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgres' | 'mysql';
  /**
   * Makes a new database and returns its DSN (empty string + a path for SQLite). Empty by default; with
   * `migrated` it is a copy of a database already migrated to the latest schema (a template made once per
   * schema), which is what a gateway would make of an empty one at start, minus the seconds of DDL.
   */
  create(opts?: { migrated?: boolean }): Promise<{ dsn: string; sqlitePath: string; drop(): Promise<void> }>;
}

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const required = process.env.CI === 'true';

/**
 * The schema's fingerprint: every migration's text and the list that runs them. A template database is named
 * after it, so a changed migration makes a new template and never reuses a stale one.
 */
const SCHEMA = (() => {
  const dir = fileURLToPath(new URL('../../src/db/', import.meta.url));
  const h = createHash('sha256').update(readFileSync(join(dir, 'index.ts')));
  for (const sub of ['migrations', 'log-partitions'])
    for (const f of readdirSync(join(dir, sub)).sort()) h.update(f).update(readFileSync(join(dir, sub, f)));
  return h.digest('hex').slice(0, 12);
})();
const TEMPLATE = `gw_tmpl_${SCHEMA}`;

/** Opens a database and migrates it to the latest schema (what a gateway does at start). */
async function migrateAt(dsn: string, sqlitePath: string) {
  const { migrate, openDatabase } = await import('../../src/db/index.ts');
  const handle = await openDatabase(dsn, sqlitePath);
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
}

/** Per process: the template is checked (and built if missing) once. */
const memo = new Map<string, Promise<string>>();
const once = (key: string, make: () => Promise<string>) => {
  let p = memo.get(key);
  if (!p) {
    p = make();
    memo.set(key, p);
    p.catch(() => memo.delete(key));
  }
  return p;
};

/** A migrated SQLite file in the temp folder, shared by every test process (written aside, then renamed). */
const sqliteTemplate = () =>
  once('sqlite', async () => {
    const file = join(tmpdir(), `${TEMPLATE}.db`);
    if (existsSync(file)) return file;
    const dir = mkdtempSync(join(tmpdir(), 'gw-tmpl-'));
    await migrateAt('', join(dir, 'template.db'));
    renameSync(join(dir, 'template.db'), file);
    return file;
  });

const sqlite: TestDatabase = {
  name: 'sqlite',
  async create(opts) {
    const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
    const sqlitePath = join(dir, 'test.db');
    if (opts?.migrated) copyFileSync(await sqliteTemplate(), sqlitePath);
    return { dsn: '', sqlitePath, drop: async () => {} };
  },
};

export async function pgAdmin<T>(fn: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const pgDsn = (name: string) => {
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * The migrated template on PostgreSQL, built by the first process that needs it (under an advisory lock,
 * as `<name>_build`, renamed when complete) and marked a template that takes no connections, so
 * `CREATE DATABASE x TEMPLATE y` can copy it while other runs do the same.
 */
const pgTemplate = () =>
  once('postgres', () =>
    pgAdmin(async (c) => {
      const exists = async () =>
        (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE])).rowCount === 1;
      if (await exists()) return TEMPLATE;
      await c.query('SELECT pg_advisory_lock(hashtext($1))', [TEMPLATE]);
      try {
        if (await exists()) return TEMPLATE;
        const building = `${TEMPLATE}_build`;
        await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${building}`);
        await migrateAt(pgDsn(building), '');
        await c.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
        await c.query(`ALTER DATABASE ${TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
        return TEMPLATE;
      } finally {
        await c.query('SELECT pg_advisory_unlock(hashtext($1))', [TEMPLATE]);
      }
    }),
  );

const postgres: TestDatabase = {
  name: 'postgres',
  async create(opts) {
    const name = `gw_test_${randomBytes(6).toString('hex')}`;
    const template = opts?.migrated ? ` TEMPLATE ${await pgTemplate()}` : '';
    await pgAdmin((c) => c.query(`CREATE DATABASE ${name}${template}`));
    return {
      dsn: pgDsn(name),
      sqlitePath: '',
      drop: () => pgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
    };
  },
};

async function mysqlAdmin<T>(
  fn: (c: import('mysql2/promise').Connection) => Promise<T>,
  opts: { multipleStatements?: boolean } = {},
): Promise<T> {
  const mysql = await import('mysql2/promise');
  const u = new URL(MYSQL_URL);
  const conn = await mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    connectTimeout: 2000,
    ...opts,
  });
  try {
    return await fn(conn);
  } finally {
    await conn.end();
  }
}

const mysqlDsn = (name: string) => {
  const u = new URL(MYSQL_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Marks a complete template on MySQL (which cannot rename a database); never copied into a test database. */
const READY = 'zz_template_ready';

/**
 * MySQL has no CREATE DATABASE ... TEMPLATE; the cheapest equivalent is a migrated template database whose
 * tables are copied with `CREATE TABLE ... LIKE` (columns, indexes, charset) and `INSERT ... SELECT` (the
 * migration bookkeeping): a fraction of a second against several seconds of migrations' DDL; views are made
 * again from their definitions. The first process that needs it builds it under GET_LOCK; returns the tables
 * to copy.
 */
const mysqlTemplate = () =>
  once('mysql', () =>
    mysqlAdmin(async (c) => {
      const tables = async () => {
        const [rows] = await c.query(
          "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
          [TEMPLATE],
        );
        return (rows as Array<{ t: string }>).map((r) => r.t);
      };
      let found = await tables();
      if (found.includes(READY)) return JSON.stringify(found.filter((t) => t !== READY));
      await c.query('SELECT GET_LOCK(?, 300)', [TEMPLATE]);
      try {
        found = await tables();
        if (!found.includes(READY)) {
          await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
          await c.query(`CREATE DATABASE ${TEMPLATE} CHARACTER SET utf8mb4`);
          await migrateAt(mysqlDsn(TEMPLATE), '');
          await c.query(`CREATE TABLE ${TEMPLATE}.${READY} (id int)`);
          found = await tables();
        }
        return JSON.stringify(found.filter((t) => t !== READY));
      } finally {
        await c.query('SELECT RELEASE_LOCK(?)', [TEMPLATE]);
      }
    }),
  );

const mysql: TestDatabase = {
  name: 'mysql',
  async create(opts) {
    const name = `gw_test_${randomBytes(6).toString('hex')}`;
    const tables: string[] = opts?.migrated ? JSON.parse(await mysqlTemplate()) : [];
    const copy = tables
      .map(
        (t) =>
          `CREATE TABLE ${name}.\`${t}\` LIKE ${TEMPLATE}.\`${t}\`; ` +
          `INSERT INTO ${name}.\`${t}\` SELECT * FROM ${TEMPLATE}.\`${t}\`;`,
      )
      .join('\n');
    await mysqlAdmin(
      async (c) => {
        await c.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
        if (copy) await c.query(copy);
        if (!opts?.migrated) return;
        const [views] = await c.query(
          'SELECT table_name AS t, view_definition AS d FROM information_schema.views WHERE table_schema = ?',
          [TEMPLATE],
        );
        for (const v of views as Array<{ t: string; d: string }>)
          await c.query(
            `CREATE VIEW ${name}.\`${v.t}\` AS ${v.d.replaceAll(`\`${TEMPLATE}\`.`, `\`${name}\`.`)}`,
          );
      },
      { multipleStatements: true },
    );
    return {
      dsn: mysqlDsn(name),
      sqlitePath: '',
      drop: () => mysqlAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name}`)).then(() => {}),
    };
  },
};

/** The engines this tier runs on (TEST_ENGINES, e.g. `sqlite`; all when unset). */
const selected = (process.env.TEST_ENGINES ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const wanted = (name: string) => selected.length === 0 || selected.includes(name);

async function reachable(db: TestDatabase): Promise<boolean> {
  if (!wanted(db.name)) return false;
  try {
    if (db.name === 'postgres') await pgAdmin((c) => c.query('SELECT 1'));
    if (db.name === 'mysql') await mysqlAdmin((c) => c.query('SELECT 1'));
    return true;
  } catch (err) {
    if (required)
      throw new Error(`${db.name} is required in CI but not reachable: ${(err as Error).message}`);
    return false;
  }
}

const [pgUp, myUp] = await Promise.all([reachable(postgres), reachable(mysql)]);

/**
 * Every engine with whether it can be used here; use with describe.skipIf(!available). A test file that
 * imports this (or `pgAdmin`) is a store test: it runs in the stores tier, the only one with PostgreSQL and
 * MySQL (vitest.config.ts). A file whose logic does not touch SQL uses `SQLITE_ONLY` instead.
 */
export const DATABASES: Array<TestDatabase & { available: boolean }> = [
  { ...sqlite, available: true },
  { ...postgres, available: pgUp },
  { ...mysql, available: myUp },
];

/**
 * One engine picked on purpose (a process test that needs PostgreSQL, say), with whether it is reachable;
 * unlike a loop over DATABASES it does not make the file a store test.
 */
export const databaseNamed = (name: TestDatabase['name']) =>
  DATABASES.find((d) => d.name === name) as TestDatabase & { available: boolean };

/**
 * SQLite alone, in the shape of DATABASES: for a file that once looped over every engine but whose logic
 * does not depend on one (it stays in the HTTP tier; the stores tier covers the SQL it reaches).
 */
export const SQLITE_ONLY: Array<TestDatabase & { available: boolean }> = [{ ...sqlite, available: true }];

/** The Redis the tests use, and whether it answers (required in CI). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisUp(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await probe.connect();
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error('Redis is required in CI');
    return false;
  } finally {
    probe.disconnect();
  }
}
