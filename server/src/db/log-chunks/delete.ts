import type { Database as Sqlite } from 'better-sqlite3';
import { chunkTables, LIVE, quote } from './layout.ts';
import { rebuildLogView } from './view.ts';

interface Extent {
  table: string;
  minId: number | null;
  maxId: number | null;
  newest: number | null;
}

/** Each table's id range (rowid ends) and newest row ((created_at, id) index end): no scan. */
function extents(sqlite: Sqlite): Extent[] {
  return [...chunkTables(sqlite), LIVE].map((table) => {
    // One subquery per extreme: SQLite answers a lone min() or max() from an index end, two together by a scan.
    const t = quote(table);
    const r = sqlite
      .prepare(
        `SELECT (SELECT min(id) FROM ${t}) AS minId, (SELECT max(id) FROM ${t}) AS maxId, (SELECT max(created_at) FROM ${t}) AS newest`,
      )
      .get() as Omit<Extent, 'table'>;
    return { table, ...r };
  });
}

/**
 * Drops the closed chunks whose every row is older than `before` (unix seconds), in one transaction with the
 * view's rebuild; returns how many rows went. Whole chunks go without touching their rows or indexes row by row.
 */
export function dropChunksBefore(sqlite: Sqlite, before: number): number {
  const closed = extents(sqlite).filter((e) => e.table !== LIVE);
  const expired = closed.filter((e) => e.newest !== null && e.newest < before);
  const going = [...expired, ...closed.filter((e) => e.maxId === null)];
  if (going.length === 0) return 0;
  let rows = 0;
  sqlite.transaction(() => {
    for (const e of expired)
      rows += (sqlite.prepare(`SELECT count(*) AS n FROM ${quote(e.table)}`).get() as { n: number }).n;
    for (const e of going) sqlite.exec(`DROP TABLE ${quote(e.table)}`);
    rebuildLogView(sqlite);
  })();
  return rows;
}

/** Deletes every row older than `before`: whole chunks dropped, the rest deleted where they are; returns how many. */
export function deleteRowsBefore(sqlite: Sqlite, before: number): number {
  let rows = dropChunksBefore(sqlite, before);
  sqlite.transaction(() => {
    for (const table of [...chunkTables(sqlite), LIVE])
      rows += sqlite.prepare(`DELETE FROM ${quote(table)} WHERE created_at < ?`).run(before).changes;
  })();
  return rows;
}

/** Deletes rows by id from the tables whose id range holds them (ids grow from chunk to chunk). */
export function deleteRowIds(sqlite: Sqlite, ids: number[]): number {
  if (ids.length === 0) return 0;
  const lo = Math.min(...ids);
  const hi = Math.max(...ids);
  const list = ids.map(() => '?').join(', ');
  let rows = 0;
  sqlite.transaction(() => {
    for (const e of extents(sqlite)) {
      if (e.minId === null || e.maxId === null || e.maxId < lo || e.minId > hi) continue;
      rows += sqlite.prepare(`DELETE FROM ${quote(e.table)} WHERE id IN (${list})`).run(...ids).changes;
    }
  })();
  return rows;
}
