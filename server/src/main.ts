import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';

const config = loadConfig();
const ctx = await createContext(config);
const app = await buildApp(ctx);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  ctx.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  const force = setTimeout(() => {
    ctx.log.error('shutdown took too long; exiting');
    process.exit(1);
  }, 30_000);
  force.unref();
  try {
    await app.close();
    await ctx.close();
  } finally {
    process.exit(0);
  }
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

await app.listen({ port: config.port, host: config.host });
ctx.log.info({ port: config.port, database: ctx.db.dialect }, 'gateway listening');
