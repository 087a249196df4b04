import type { Database, Statement } from 'better-sqlite3';
import type { CompiledQuery, QueryId, QueryResult } from 'kysely';

/**
 * MIX_SLOW_SQL=<ms>: reports every SQLite statement that held the event loop longer than `ms` (better-sqlite3
 * runs each query on this thread, so a slow statement is a stall), with the phase the gateway was in. A
 * diagnostic of the benchmark gateway, off unless asked for.
 */
export function traceSlowStatements(handle: Database, thresholdMs: number, phase: () => string): void {
  const prepare = handle.prepare.bind(handle);
  const timed = (stmt: Statement, method: 'run' | 'all' | 'get') => {
    const original = (stmt[method] as (...a: unknown[]) => unknown).bind(stmt);
    (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const started = performance.now();
      try {
        return original(...args);
      } finally {
        const ms = performance.now() - started;
        if (ms > thresholdMs)
          console.error(
            `slow sql ${ms.toFixed(1)} ms [${phase()}] ${stmt.source.replace(/\s+/g, ' ').slice(0, 300)}`,
          );
      }
    };
  };
  (handle as unknown as { prepare: (sql: string) => Statement }).prepare = (source: string) => {
    const stmt = prepare(source);
    for (const m of ['run', 'all', 'get'] as const) timed(stmt, m);
    return stmt;
  };
}

interface QueryRunner {
  executeQuery(query: CompiledQuery, queryId: QueryId): Promise<QueryResult<unknown>>;
}

/**
 * MIX_SLOW_SQL=<ms> as well: reports every query of the main thread's query builder that took longer than `ms`
 * from being asked to being answered, waiting for the connection and for SQLite's write lock included: what a
 * request that needs the query waits.
 */
export function traceSlowQueries(executor: QueryRunner, thresholdMs: number, phase: () => string): void {
  const run = executor.executeQuery.bind(executor);
  executor.executeQuery = async (query, queryId) => {
    const asked = performance.now();
    try {
      return await run(query, queryId);
    } finally {
      const ms = performance.now() - asked;
      if (ms > thresholdMs)
        console.error(
          `${new Date().toISOString().slice(11, 23)} slow query ${ms.toFixed(1)} ms [${phase()}] ${query.sql.replace(/\s+/g, ' ').slice(0, 160)}`,
        );
    }
  };
}
