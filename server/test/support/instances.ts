import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { DATABASES, REDIS_URL } from './databases.ts';
import type { TestServer } from './server.ts';

/**
 * `count` gateways on 127.0.0.1 sharing one fresh database (PostgreSQL when reachable, else one SQLite file)
 * and the test Redis: the first is the master node. `close` stops them all and drops the database.
 */
export async function startInstances(
  count: number,
  env: Record<string, string> = {},
): Promise<{ nodes: TestServer[]; engine: string; close(): Promise<void> }> {
  const engine = DATABASES.find((d) => d.name === 'postgres' && d.available) ?? DATABASES[0];
  const made = await engine.create({ migrated: true });
  const nodes: TestServer[] = [];
  for (let i = 0; i < count; i++) {
    const config = loadConfig({
      SQL_DSN: made.dsn,
      SQLITE_PATH: made.sqlitePath,
      SESSION_SECRET: 'test-session-secret',
      REDIS_CONN_STRING: REDIS_URL,
      BATCH_UPDATE_INTERVAL: '0.2',
      LOG_LEVEL: 'silent',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      CRITICAL_RATE_LIMIT: '100000',
      NODE_TYPE: i === 0 ? 'master' : 'slave',
      ...env,
    });
    const ctx = await createContext(config, pino({ level: 'silent' }));
    const app = await buildApp(ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    nodes.push({
      url: `http://127.0.0.1:${port}`,
      app,
      ctx,
      close: async () => {
        await app.close();
        await ctx.close();
      },
    });
  }
  return {
    nodes,
    engine: engine.name,
    async close() {
      for (const n of nodes) await n.close();
      await made.drop();
    },
  };
}
