import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type AppContext, createContext } from '../../src/context.ts';
import { DATABASES, type TestDatabase } from './databases.ts';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  ctx: AppContext;
  close(): Promise<void>;
}

/**
 * A real gateway on 127.0.0.1 with a fresh database of the given engine (SQLite by default).
 * `env` overrides environment variables (same names as in production).
 */
export async function startServer(
  opts: { db?: TestDatabase; env?: Record<string, string> } = {},
): Promise<TestServer> {
  const engine = opts.db ?? DATABASES[0];
  const made = await engine.create({ migrated: true });
  const config: Config = loadConfig({
    SQL_DSN: made.dsn,
    SQLITE_PATH: made.sqlitePath,
    SESSION_SECRET: 'test-session-secret',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
    // Tests log in and register many times from 127.0.0.1; rate-limit tests set their own numbers.
    CRITICAL_RATE_LIMIT: '100000',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const ctx = await createContext(config, pino({ level: config.logLevel }));
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    ctx,
    async close() {
      // A connection still busy at a file's end (a client that never read its answer) would hold app.close()
      // until it ends, and the next file with it; after 5 s such connections are cut, and it is said.
      const cut = setTimeout(() => {
        console.warn(`test gateway ${port}: connections still open 5 s into close; cutting them`);
        app.server.closeAllConnections();
      }, 5_000);
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
      await ctx.close();
      await made.drop();
    },
  };
}
