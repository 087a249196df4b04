import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The databases a store test runs against: SQLite always; PostgreSQL and MariaDB/MySQL when reachable.
 * In CI (CI=true) an unreachable server fails the run instead of skipping.
 * Addresses: TEST_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), TEST_MYSQL_URL (mysql://root@127.0.0.1:3306/test).
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgres' | 'mysql';
  /** Makes a new empty database and returns its DSN (empty string + a path for SQLite). */
  create(): Promise<{ dsn: string; sqlitePath: string; drop(): Promise<void> }>;
}

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const required = process.env.CI === 'true';

const sqlite: TestDatabase = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
    return { dsn: '', sqlitePath: join(dir, 'test.db'), drop: async () => {} };
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

const postgres: TestDatabase = {
  name: 'postgres',
  async create() {
    const name = `gw_test_${randomBytes(6).toString('hex')}`;
    await pgAdmin((c) => c.query(`CREATE DATABASE ${name}`));
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return {
      dsn: url.toString(),
      sqlitePath: '',
      drop: () => pgAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
    };
  },
};

async function mysqlAdmin<T>(fn: (c: import('mysql2/promise').Connection) => Promise<T>): Promise<T> {
  const mysql = await import('mysql2/promise');
  const u = new URL(MYSQL_URL);
  const conn = await mysql.createConnection({
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    connectTimeout: 2000,
  });
  try {
    return await fn(conn);
  } finally {
    await conn.end();
  }
}

const mysql: TestDatabase = {
  name: 'mysql',
  async create() {
    const name = `gw_test_${randomBytes(6).toString('hex')}`;
    await mysqlAdmin((c) => c.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`));
    const u = new URL(MYSQL_URL);
    u.pathname = `/${name}`;
    return {
      dsn: u.toString(),
      sqlitePath: '',
      drop: () => mysqlAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name}`)).then(() => {}),
    };
  },
};

async function reachable(db: TestDatabase): Promise<boolean> {
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

/** Every engine with whether it can be used here; use with describe.skipIf(!available). */
export const DATABASES: Array<TestDatabase & { available: boolean }> = [
  { ...sqlite, available: true },
  { ...postgres, available: pgUp },
  { ...mysql, available: myUp },
];

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
