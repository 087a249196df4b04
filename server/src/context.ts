import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { type Db, migrate, openDatabase } from './db/index.ts';
import { type Bus, createBus } from './infra/bus.ts';
import type { Metrics } from './infra/metrics/metrics.ts';
import { startTracing } from './infra/tracing/provider.ts';
import { closeWriterThread } from './ledger/worker/shared-thread.ts';
import { createRevokedSessions, type RevokedSessions } from './modules/auth/revoked-sessions.ts';
import { createOptionStore, type OptionStore } from './modules/options/store.ts';
import { createUserCache, type UserCache } from './modules/users/cache.ts';

/**
 * What every module gets: configuration, the databases, the logger, the options in memory, the change bus.
 * Modules add their own long-lived state through `onClose` (flush pending writes) and `onStart` (timers).
 */
export interface AppContext {
  config: Config;
  db: Db;
  /** The database holding the `logs` table (the main one unless LOG_SQL_DSN is set). */
  logDb: Db;
  log: Logger;
  options: OptionStore;
  bus: Bus;
  /** Users in memory (role, status, group, setting, quota), refreshed on bus `user:<id>`. */
  users: UserCache;
  /** Session ids ended by logout (checked on every console request). */
  sessions: RevokedSessions;
  redis?: Redis;
  /** Prometheus metrics, present only when /metrics is enabled (METRICS_TOKEN or METRICS_ALLOW). */
  metrics?: Metrics;
  /** Runs at shutdown, in reverse order of registration, before the databases close. */
  onClose(hook: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function createContext(config: Config, log?: Logger): Promise<AppContext> {
  const logger = log ?? pino({ level: config.logLevel });
  const db = await openDatabase(config.sqlDsn, config.sqlitePath, config.sqliteCacheMb);
  const logDb = config.logSqlDsn
    ? await openDatabase(config.logSqlDsn, config.sqlitePath, config.sqliteCacheMb)
    : db;
  db.logChunkRows = logDb.logChunkRows = config.logChunkRows;
  if (config.nodeType === 'master') {
    await migrate(db);
    if (logDb !== db) await migrate(logDb);
  }
  let redis: Redis | undefined;
  let redisSub: Redis | undefined;
  if (config.redisConnString) {
    // Loaded only when configured: an instance without Redis does not carry the client in memory.
    const { Redis } = await import('ioredis');
    redis = new Redis(config.redisConnString, { maxRetriesPerRequest: 3, lazyConnect: true });
    redisSub = new Redis(config.redisConnString, { lazyConnect: true });
    await redis.connect();
    await redisSub.connect();
  }
  const bus = createBus(redis && redisSub ? { pub: redis, sub: redisSub } : undefined);
  const options = await createOptionStore(db, bus);
  const sessions = await createRevokedSessions(db, bus, config.syncFrequencySec);
  // Loaded only when enabled: with metrics off, prom-client is not even in memory.
  const metrics =
    config.metricsToken || config.metricsAllow.length
      ? new (await import('./infra/metrics/metrics.ts')).Metrics()
      : undefined;
  const hooks: Array<() => Promise<void> | void> = [];
  if (metrics) hooks.push(() => metrics.stop());
  // OpenTelemetry traces of the relay, only when an OTLP endpoint is configured (infra/tracing/).
  const stopTracing = await startTracing(config);
  if (stopTracing) hooks.push(stopTracing);
  let closed = false;
  const ctx: AppContext = {
    config,
    db,
    logDb,
    log: logger,
    options,
    bus,
    users: createUserCache(db, bus, { ttlMs: config.syncFrequencySec * 1000 }),
    sessions,
    redis,
    metrics,
    onClose: (hook) => hooks.push(hook),
    async close() {
      if (closed) return;
      closed = true;
      for (const hook of hooks.reverse()) {
        try {
          await hook();
        } catch (err) {
          logger.error({ err }, 'shutdown hook failed');
        }
      }
      // After the hooks: the ledger's last flush and the background jobs they wait for run on it.
      await closeWriterThread(ctx);
      sessions.stop();
      await bus.close();
      redis?.disconnect();
      redisSub?.disconnect();
      if (logDb !== db) await logDb.close();
      await db.close();
    },
  };
  return ctx;
}
