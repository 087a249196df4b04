import type { Database as Sqlite } from 'better-sqlite3';
import { chunkTables, LIVE, quote, VIEW } from './layout.ts';

interface Column {
  name: string;
  dflt_value: string | null;
}

/**
 * (Re)creates the `logs` view over the closed chunks and the live table, oldest first, its INSTEAD OF
 * triggers, and `logs_extent` (newest id, oldest and newest time; migration 016 on the other engines), which
 * asks each table for its own from an index end: the same aggregate over the view would read every row. Run inside the transaction that changed the chunks. The triggers serve the few writes that go
 * through `logs` (a refund's row, tests, imports): a new row goes to the live table with the table's defaults
 * for what it leaves out; an update or delete is applied to every table by id (ids are unique across them).
 */
export function rebuildLogView(sqlite: Sqlite): void {
  const tables = [...chunkTables(sqlite), LIVE].map(quote);
  const columns = sqlite.prepare(`PRAGMA table_info(${quote(LIVE)})`).all() as Column[];
  const names = columns.map((c) => quote(c.name));
  const values = columns.map((c) =>
    c.dflt_value === null ? `NEW.${quote(c.name)}` : `COALESCE(NEW.${quote(c.name)}, ${c.dflt_value})`,
  );
  const sets = columns
    .filter((c) => c.name !== 'id')
    .map((c) => `${quote(c.name)} = NEW.${quote(c.name)}`)
    .join(', ');
  const each = (statement: (table: string) => string) => tables.map((t) => `${statement(t)};`).join('\n');
  sqlite.exec(`DROP VIEW IF EXISTS ${quote(VIEW)}`);
  sqlite.exec(`CREATE VIEW ${quote(VIEW)} AS ${tables.map((t) => `SELECT * FROM ${t}`).join(' UNION ALL ')}`);
  const extreme = (fn: string, col: string) =>
    `(SELECT ${fn}(v) FROM (${tables.map((t) => `SELECT ${fn}(${col}) AS v FROM ${t}`).join(' UNION ALL ')}))`;
  sqlite.exec(`DROP VIEW IF EXISTS logs_extent`);
  sqlite.exec(`CREATE VIEW logs_extent AS SELECT ${extreme('max', 'id')} AS max_id,
    ${extreme('min', 'created_at')} AS min_created_at, ${extreme('max', 'created_at')} AS max_created_at`);
  sqlite.exec(`CREATE TRIGGER logs_insert INSTEAD OF INSERT ON ${quote(VIEW)} BEGIN
    INSERT INTO ${quote(LIVE)} (${names.join(', ')}) VALUES (${values.join(', ')});
  END`);
  sqlite.exec(`CREATE TRIGGER logs_update INSTEAD OF UPDATE ON ${quote(VIEW)} BEGIN
    ${each((t) => `UPDATE ${t} SET ${sets} WHERE id = OLD.id`)}
  END`);
  sqlite.exec(`CREATE TRIGGER logs_delete INSTEAD OF DELETE ON ${quote(VIEW)} BEGIN
    ${each((t) => `DELETE FROM ${t} WHERE id = OLD.id`)}
  END`);
}
