import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { lowerRuntimeThreadsPriority } from './infra/os/thread-priority.ts';
import { applyConfigFileAtStart } from './modules/config/startup.ts';
import { relayState } from './relay/relay-state.ts';

// Before the server starts threads of its own: what runs now besides the event loop is V8's and Node's.
lowerRuntimeThreadsPriority();
const config = loadConfig();
const ctx = await createContext(config);
try {
  await applyConfigFileAtStart(ctx);
} catch (err) {
  ctx.log.fatal({ err: (err as Error).message }, 'CONFIG_FILE refused; not starting');
  await ctx.close();
  process.exit(1);
}
const app = await buildApp(ctx);

/**
 * SIGTERM: stop accepting, let requests in flight finish for SHUTDOWN_TIMEOUT seconds, then abort the upstream
 * calls still open (each settles as an upstream failure: holds released, streams billed for what was sent),
 * then flush the batched writes and exit 0. A hard exit 15 s later is the last resort.
 */
let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  ctx.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
  const deadline = setTimeout(() => {
    ctx.log.warn('requests still in flight at the shutdown deadline; aborting their upstream calls');
    relayState(ctx)
      .upstream.abortAll()
      .catch((err) => ctx.log.error({ err }, 'aborting upstream calls failed'));
  }, config.shutdownTimeoutSec * 1000);
  const force = setTimeout(
    () => {
      ctx.log.error('shutdown took too long; exiting');
      process.exit(1);
    },
    (config.shutdownTimeoutSec + 15) * 1000,
  );
  // Keep-alive connections of requests that finish during the shutdown would hold the server open.
  const idle = setInterval(() => app.server.closeIdleConnections(), 200);
  deadline.unref();
  force.unref();
  idle.unref();
  let code = 0;
  try {
    await app.close();
    clearTimeout(deadline);
    clearInterval(idle);
    await ctx.close();
  } catch (err) {
    ctx.log.error({ err }, 'shutdown failed');
    code = 1;
  } finally {
    process.exit(code);
  }
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

await app.listen({ port: config.port, host: config.host });
ctx.log.info({ port: config.port, database: ctx.db.dialect }, 'gateway listening');
