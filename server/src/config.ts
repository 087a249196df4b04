import { randomUUID } from 'node:crypto';

/** Every environment variable the server reads, in one place. The README lists them with these defaults. */
export interface Config {
  port: number;
  host: string;
  sqlDsn: string;
  sqlitePath: string;
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
  globalApiRateLimit: { enabled: boolean; count: number; durationSec: number };
  globalWebRateLimit: { enabled: boolean; count: number; durationSec: number };
  criticalRateLimit: { count: number; durationSec: number };
  maxRequestBodyMb: number;
  /** Seconds a shutdown waits for requests in flight before it aborts their upstream calls. */
  shutdownTimeoutSec: number;
  /** Proxies whose X-Forwarded-For is believed (addresses, CIDRs, or loopback/linklocal/uniquelocal). */
  trustedProxies: string[];
  logLevel: string;
  webDist: string;
  debug: boolean;
}

type Env = Record<string, string | undefined>;

const int = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got "${raw}"`);
  return n;
};
const bool = (env: Env, name: string, fallback: boolean): boolean => {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  return raw === 'true' || raw === '1' || raw === 'yes';
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
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    webDist: env.WEB_DIST?.trim() || new URL('../../web/dist', import.meta.url).pathname,
    debug: bool(env, 'DEBUG', false),
  };
}
