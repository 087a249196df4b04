export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** Which engine a DSN names: postgres://... -> PostgreSQL, empty or local -> SQLite, anything else -> MySQL. */
export function dialectOf(dsn: string): DialectName {
  if (!dsn || dsn.startsWith('local')) return 'sqlite';
  if (dsn.startsWith('postgres://') || dsn.startsWith('postgresql://')) return 'postgres';
  return 'mysql';
}

/** Accepts `mysql://user:pass@host:port/db` and the Go-style `user:pass@tcp(host:port)/db?params`. */
export function parseMysqlDsn(dsn: string): {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
} {
  if (dsn.startsWith('mysql://') || dsn.startsWith('mariadb://')) {
    const u = new URL(dsn.replace(/^mariadb:/, 'mysql:'));
    return {
      host: u.hostname || '127.0.0.1',
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username || 'root'),
      password: decodeURIComponent(u.password),
      database: u.pathname.replace(/^\//, ''),
    };
  }
  const m = /^(?:([^:@]*)(?::([^@]*))?@)?(?:tcp\(([^)]*)\)|unix\(([^)]*)\))?\/([^?]*)/.exec(dsn);
  if (!m)
    throw new Error('SQL_DSN is not a recognised MySQL DSN (use user:pass@tcp(host:port)/db or mysql://...)');
  const [host, port] = (m[3] ?? '127.0.0.1:3306').split(':');
  return {
    host: host || '127.0.0.1',
    port: Number(port || 3306),
    user: m[1] || 'root',
    password: m[2] ?? '',
    database: m[5],
  };
}
