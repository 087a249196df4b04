import { randomUUID } from 'node:crypto';
import { DEFAULT_LOG_CHUNK_ROWS } from './db/log-chunks/layout.ts';
import { allowListLines, invalidAllowEntries } from './infra/ip-allow.ts';

/** Every environment variable the server reads, in one place. The README lists them with these defaults. */
export interface Config {
  port: number;
  host: string;
  sqlDsn: string;
  sqlitePath: string;
  /** SQLite's page cache per database, in MB (SQLITE_CACHE_MB). */
  sqliteCacheMb: number;
  /** Whether the ledger's writes and WAL checkpoints on a SQLite file run on a thread of their own (SQLITE_WRITER_THREAD). */
  sqliteWriterThread: boolean;
  /** Usage log rows the live table takes on SQLite before it is closed as an indexed chunk (LOG_CHUNK_ROWS). */
  logChunkRows: number;
  logSqlDsn: string;
  redisConnString: string;
  sessionSecret: string;
  cryptoSecret: string;
  nodeType: 'master' | 'slave';
  syncFrequencySec: number;
  streamingTimeoutSec: number;
  relayTimeoutSec: number;
  channelTestFrequencyMin: number;
  channelUpdateFrequencyMin: number;
  batchUpdateIntervalSec: number;
  /** Whether the master polls unfinished asynchronous tasks (Midjourney, Suno) upstream. */
  updateTask: boolean;
  /** Seconds between two rounds of the task loop. */
  taskPollIntervalSec: number;
  /** Minutes after its submit when an unfinished task is given up as failed (and refunded). */
  taskTimeoutMin: number;
  globalApiRateLimit: { enabled: boolean; count: number; durationSec: number };
  globalWebRateLimit: { enabled: boolean; count: number; durationSec: number };
  criticalRateLimit: { count: number; durationSec: number };
  maxRequestBodyMb: number;
  /** Seconds a shutdown waits for requests in flight before it aborts their upstream calls. */
  shutdownTimeoutSec: number;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs, or loopback/linklocal/uniquelocal). */
  trustedProxies: string[];
  /** Bearer token a Prometheus scrape of /metrics must send (METRICS_TOKEN); empty = no token asked. */
  metricsToken: string;
  /** A configuration file (YAML) applied at start by the master node (CONFIG_FILE); '' = none. */
  configFile: string;
  /** The secrets file {secret: NAME} references in a configuration file resolve from (CONFIG_SECRETS_FILE). */
  configSecretsFile: string;
  /** OTLP/HTTP traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces); '' = tracing off. */
  otelTracesUrl: string;
  /** OTEL_SERVICE_NAME, `modelgate` by default. */
  otelServiceName: string;
  /** Addresses and CIDR ranges allowed to scrape /metrics (METRICS_ALLOW); /metrics is off when both are empty. */
  metricsAllow: string[];
  /** Where the version check reads the latest public release (VERSION_CHECK_URL); empty = no check. */
  versionCheckUrl: string;
  logLevel: string;
  webDist: string;
  debug: boolean;
}

type Env = Record<string, string | undefined>;

/** SQLite's page cache when SQLITE_CACHE_MB is unset (SQLite's own default; see db/index.ts). */
export const DEFAULT_SQLITE_CACHE_MB = 2;

const int = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got "${raw}"`);
  return n;
};
const positive = (env: Env, name: string, fallback: number): number => {
  const n = int(env, name, fallback);
  if (!(n > 0)) throw new Error(`${name} must be above 0, got "${env[name]}"`);
  return n;
};
const bool = (env: Env, name: string, fallback: boolean): boolean => {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  return raw === 'true' || raw === '1' || raw === 'yes';
};

const addressList = (env: Env, name: string): string[] => {
  const bad = invalidAllowEntries(env[name]);
  if (bad.length)
    throw new Error(`${name} must list IP addresses or CIDR ranges; not valid: ${bad.join(', ')}`);
  return allowListLines(env[name]);
};

export function loadConfig(env: Env = process.env): Config {
  const sessionSecret = env.SESSION_SECRET?.trim() || randomUUID();
  if (sessionSecret === 'random_string') {
    throw new Error('SESSION_SECRET is still the example value "random_string"; set a real secret');
  }
  return {
    port: int(env, 'PORT', 3000),
    host: env.HOST?.trim() || '0.0.0.0',
    sqlDsn: env.SQL_DSN?.trim() ?? '',
    sqlitePath: env.SQLITE_PATH?.trim() || './data/gateway.db',
    sqliteCacheMb: positive(env, 'SQLITE_CACHE_MB', DEFAULT_SQLITE_CACHE_MB),
    sqliteWriterThread: bool(env, 'SQLITE_WRITER_THREAD', true),
    logChunkRows: positive(env, 'LOG_CHUNK_ROWS', DEFAULT_LOG_CHUNK_ROWS),
    logSqlDsn: env.LOG_SQL_DSN?.trim() ?? '',
    redisConnString: env.REDIS_CONN_STRING?.trim() ?? '',
    sessionSecret,
    cryptoSecret: env.CRYPTO_SECRET?.trim() || sessionSecret,
    nodeType: env.NODE_TYPE?.trim() === 'slave' ? 'slave' : 'master',
    syncFrequencySec: int(env, 'SYNC_FREQUENCY', 60),
    streamingTimeoutSec: int(env, 'STREAMING_TIMEOUT', 120),
    relayTimeoutSec: int(env, 'RELAY_TIMEOUT', 300),
    channelTestFrequencyMin: int(env, 'CHANNEL_TEST_FREQUENCY', 0),
    channelUpdateFrequencyMin: int(env, 'CHANNEL_UPDATE_FREQUENCY', 0),
    batchUpdateIntervalSec: int(env, 'BATCH_UPDATE_INTERVAL', 1),
    updateTask: bool(env, 'UPDATE_TASK', true),
    taskPollIntervalSec: int(env, 'TASK_POLL_INTERVAL', 15),
    taskTimeoutMin: int(env, 'TASK_TIMEOUT_MINUTES', 60),
    globalApiRateLimit: {
      enabled: bool(env, 'GLOBAL_API_RATE_LIMIT_ENABLE', true),
      count: int(env, 'GLOBAL_API_RATE_LIMIT', 180),
      durationSec: int(env, 'GLOBAL_API_RATE_LIMIT_DURATION', 180),
    },
    globalWebRateLimit: {
      enabled: bool(env, 'GLOBAL_WEB_RATE_LIMIT_ENABLE', true),
      count: int(env, 'GLOBAL_WEB_RATE_LIMIT', 60),
      durationSec: int(env, 'GLOBAL_WEB_RATE_LIMIT_DURATION', 180),
    },
    criticalRateLimit: {
      count: int(env, 'CRITICAL_RATE_LIMIT', 20),
      durationSec: int(env, 'CRITICAL_RATE_LIMIT_DURATION', 1200),
    },
    maxRequestBodyMb: int(env, 'MAX_REQUEST_BODY_MB', 32),
    shutdownTimeoutSec: int(env, 'SHUTDOWN_TIMEOUT', 25),
    trustedProxies: (env.TRUSTED_PROXIES ?? 'loopback')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    metricsToken: env.METRICS_TOKEN?.trim() ?? '',
    configFile: env.CONFIG_FILE?.trim() ?? '',
    configSecretsFile: env.CONFIG_SECRETS_FILE?.trim() ?? '',
    otelTracesUrl:
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
      (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
        ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.trim().replace(/\/+$/, '')}/v1/traces`
        : ''),
    otelServiceName: env.OTEL_SERVICE_NAME?.trim() || 'modelgate',
    versionCheckUrl: env.VERSION_CHECK_URL?.trim() ?? '',
    metricsAllow: addressList(env, 'METRICS_ALLOW'),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    webDist: env.WEB_DIST?.trim() || new URL('../../web/dist', import.meta.url).pathname,
    debug: bool(env, 'DEBUG', false),
  };
}
