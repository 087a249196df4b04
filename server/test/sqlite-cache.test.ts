import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServer, type TestServer } from './support/server.ts';

/** SQLITE_CACHE_MB sets SQLite's page cache on the main database and on a separate log database. */
describe('SQLITE_CACHE_MB', () => {
  let server: TestServer;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-sqlite-cache-'));
    server = await startServer({
      env: { SQLITE_CACHE_MB: '16', LOG_SQL_DSN: `local:${join(dir, 'logs.db')}` },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('gives both SQLite databases a 16 MB page cache', () => {
    const cacheOf = (db: typeof server.ctx.db) => db.sqlite?.pragma('cache_size', { simple: true });
    expect(server.ctx.logDb).not.toBe(server.ctx.db);
    expect(cacheOf(server.ctx.db)).toBe(-16 * 1024);
    expect(cacheOf(server.ctx.logDb)).toBe(-16 * 1024);
  });

  it('defaults to 2 MB and refuses a size that is not above zero', () => {
    expect(loadConfig({}).sqliteCacheMb).toBe(2);
    expect(() => loadConfig({ SQLITE_CACHE_MB: '0' })).toThrow(/SQLITE_CACHE_MB must be above 0/);
    expect(() => loadConfig({ SQLITE_CACHE_MB: 'lots' })).toThrow(/SQLITE_CACHE_MB must be a number/);
  });
});
