import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';

/**
 * How long a statement keeps retrying while another connection holds SQLite's write lock, in ms: long, because
 * the holder never waits for this connection (a transaction begun here holds the lock until it ends), and a
 * large flush on a loaded machine can take seconds; before the writer thread, such a wait had no limit at all.
 */
export const BUSY_WAIT_MS = 60_000;

export const isBusy = (err: unknown) =>
  typeof (err as { code?: unknown })?.code === 'string' &&
  (err as { code: string }).code.startsWith('SQLITE_BUSY');
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A connection whose statements, refused because another connection (the ledger's writer thread) holds the
 * write lock, are retried after a timer instead of in SQLite's busy handler, which sleeps on the calling thread:
 * the event loop keeps serving while a console write waits for the lock. A refused statement did nothing, so
 * running it again is safe.
 */
class RetryingConnection implements DatabaseConnection {
  constructor(private readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const giveUpAt = performance.now() + BUSY_WAIT_MS;
    for (let delay = 1; ; delay = Math.min(delay * 2, 16)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        if (!isBusy(err) || performance.now() > giveUpAt) throw err;
        await sleep(delay);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class RetryingDriver extends SqliteDriver {
  private readonly wrapped = new WeakMap<DatabaseConnection, RetryingConnection>();

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    let conn = this.wrapped.get(inner);
    if (!conn) {
      conn = new RetryingConnection(inner);
      this.wrapped.set(inner, conn);
    }
    return conn;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * SQLite through Kysely for a connection that shares its file with the ledger's writer thread (ledger/worker/).
 * Transactions take the write lock when they begin: one begun the default (deferred) way that read before the
 * thread committed could not write at all afterwards (SQLITE_BUSY, whatever the wait). Waits for the lock are
 * timers (above), so the connection runs with busy_timeout 0.
 */
export class SharedFileSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new RetryingDriver(this.settings);
  }
}
