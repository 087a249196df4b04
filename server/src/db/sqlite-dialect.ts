import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  type SqliteDatabase,
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
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The waits between attempts at a statement the write lock refused: 1, 2, 4, 8, then 16 ms. */
const nextDelay = (delay: number) => Math.min(delay * 2, 16);

/**
 * Runs `attempt` again on timers while another connection's write lock refuses it, until `giveUpAt` (by default
 * BUSY_WAIT_MS from now). `attempt` must do nothing when refused, so that running it again is safe.
 */
export async function retryWhileBusy<T>(
  attempt: () => T | Promise<T>,
  giveUpAt = performance.now() + BUSY_WAIT_MS,
): Promise<T> {
  for (let delay = 1; ; delay = nextDelay(delay)) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err) || performance.now() > giveUpAt) throw err;
      await sleep(delay);
    }
  }
}

/**
 * Whose turn it is on the one connection (Kysely's SQLite driver has the same lock, without the step aside
 * below): one query or transaction at a time, in the order they asked.
 */
class ConnectionTurns {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  async take(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/**
 * A connection whose statements, refused because another connection (the ledger's writer thread) holds the
 * write lock, are retried after a timer instead of in SQLite's busy handler, which sleeps on the calling thread:
 * the event loop keeps serving while a console write waits for the lock. A refused statement did nothing, so
 * running it again is safe.
 *
 * Outside a transaction a refused statement holds nothing either, so it gives up its turn on the connection
 * while it waits: the reads queued behind it, which the write lock does not stop (the users' snapshots the
 * relay rereads), run meanwhile instead of waiting as long as the thread holds the lock (seconds while it
 * builds a closed log chunk's indexes). Writes keep their order: one that comes while earlier ones wait for
 * the lock waits behind them.
 */
class RetryingConnection implements DatabaseConnection {
  /** Statements waiting for the write lock, each after the one before it. */
  private waiting = 0;
  private lastWaiting: Promise<void> = Promise.resolve();

  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: { inTransaction: boolean },
    private readonly turns: ConnectionTurns,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const giveUpAt = performance.now() + BUSY_WAIT_MS;
    // Inside a transaction the turn is the transaction's: nothing else may run on the connection meanwhile.
    if (this.sqlite.inTransaction) return retryWhileBusy(() => this.inner.executeQuery<R>(query), giveUpAt);
    if (this.waiting === 0 || SelectQueryNode.is(query.query)) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        if (!isBusy(err)) throw err;
      }
    }
    return this.waitForLock(query, giveUpAt);
  }

  /** Waits behind the statements already waiting, away from the connection; returns holding the turn again. */
  private async waitForLock<R>(query: CompiledQuery, giveUpAt: number): Promise<QueryResult<R>> {
    const before = this.lastWaiting;
    let done!: () => void;
    this.lastWaiting = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.waiting++;
    this.turns.give();
    try {
      await before;
      // Not retryWhileBusy: the turn is given up between attempts, and kept when the last one fails.
      for (let delay = 1; ; delay = nextDelay(delay)) {
        await this.turns.take();
        try {
          return await this.inner.executeQuery<R>(query);
        } catch (err) {
          if (!isBusy(err) || performance.now() > giveUpAt) throw err;
        }
        this.turns.give();
        await sleep(delay);
      }
    } finally {
      this.waiting--;
      done();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class RetryingDriver extends SqliteDriver {
  private readonly turns = new ConnectionTurns();
  private connection?: RetryingConnection;

  constructor(
    settings: SqliteDialectConfig,
    private readonly sqlite: { inTransaction: boolean },
  ) {
    super(settings);
  }

  override async init(): Promise<void> {
    await super.init();
    // The driver's one connection, taken once; turns on it are this driver's own from here on.
    const inner = await super.acquireConnection();
    await super.releaseConnection();
    this.connection = new RetryingConnection(inner, this.sqlite, this.turns);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.turns.take();
    return this.connection as RetryingConnection;
  }

  override async releaseConnection(): Promise<void> {
    this.turns.give();
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
  constructor(private readonly sqlite: SqliteDatabase & { inTransaction: boolean }) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new RetryingDriver({ database: this.sqlite }, this.sqlite);
  }
}
