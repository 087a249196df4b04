import type { Database as Sqlite } from 'better-sqlite3';
import type { Db } from '../index.ts';
import { onSqlite } from './connection.ts';
import {
  buildChunkIndexes,
  CHUNK_INDEXES,
  chunkName,
  chunkNumbers,
  DEFAULT_LOG_CHUNK_ROWS,
  LIVE,
  objectType,
  quote,
  VIEW,
} from './layout.ts';
import { rebuildLogView } from './view.ts';

/**
 * Creates an empty live table with the columns of `like` (a table's stored DDL, renamed), its (created_at, id)
 * index already named for the chunk it will become, and AUTOINCREMENT carrying on from `like`'s last id.
 */
function createLive(sqlite: Sqlite, like: string, chunk: number): void {
  const ddl = (
    sqlite.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).get(like) as {
      sql: string;
    }
  ).sql.replace(/^CREATE TABLE\s+(?:"[^"]+"|`[^`]+`|\[[^\]]+\]|\S+)/i, `CREATE TABLE ${quote(LIVE)}`);
  sqlite.exec(ddl);
  sqlite.exec(`CREATE INDEX ${quote(`idx_${chunkName(chunk)}_created`)} ON ${quote(LIVE)} (created_at, id)`);
  const seq = sqlite.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(like) as
    | { seq: number }
    | undefined;
  sqlite.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(LIVE);
  if (seq) sqlite.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(LIVE, seq.seq);
}

/**
 * Puts the usage log of a SQLite database in chunks (layout.ts), once: the `logs` table of earlier versions
 * becomes the first closed chunk, indexes and all. At every start, builds what a crash left unbuilt.
 */
export function setUpLogChunks(sqlite: Sqlite): void {
  if (objectType(sqlite, VIEW) === 'table') {
    sqlite.transaction(() => {
      sqlite.exec(`ALTER TABLE ${quote(VIEW)} RENAME TO ${quote(chunkName(1))}`);
      createLive(sqlite, chunkName(1), 2);
      rebuildLogView(sqlite);
    })();
  }
  if (objectType(sqlite, 'logs_extent') !== 'view') sqlite.transaction(() => rebuildLogView(sqlite))();
  for (const n of chunkNumbers(sqlite)) buildChunkIndexes(sqlite, chunkName(n));
}

/**
 * Closes the live table as the next chunk and starts a new one, in one transaction; the closed chunk's other
 * indexes are built next (`noteLiveRows`), one statement and one write lock each, while readers read the chunk
 * as they did when it was live.
 */
export function rollLogChunk(sqlite: Sqlite): string {
  const next = (chunkNumbers(sqlite).at(-1) ?? 0) + 1;
  const closed = chunkName(next);
  sqlite.transaction(() => {
    // The views go first: a rename would otherwise rewrite them to name the closed chunk.
    sqlite.exec(`DROP VIEW IF EXISTS ${quote(VIEW)}`);
    sqlite.exec('DROP VIEW IF EXISTS logs_extent');
    sqlite.exec(`ALTER TABLE ${quote(LIVE)} RENAME TO ${quote(closed)}`);
    createLive(sqlite, closed, next + 1);
    rebuildLogView(sqlite);
  })();
  return closed;
}

const liveCounts = new WeakMap<Sqlite, number>();
const indexing = new WeakMap<Db, Promise<void>>();

/**
 * The pause before each of a closed chunk's index builds. Each build holds the file's write lock for one sort
 * of the chunk (0.1 s on a quiet core, over 1 s on a busy one for the writer thread, which runs at a lower
 * priority); between two, the flushes queued meanwhile commit and a console write waiting for the lock (it
 * retries every 1-16 ms) takes it, instead of waiting for all fourteen.
 */
const INDEX_BUILD_PAUSE_MS = 25;

/**
 * Counts `added` rows just committed to the live table, and closes it as a chunk once it holds `chunkRows`
 * (LOG_CHUNK_ROWS). The closed chunk's indexes are then built in the background, one at a time
 * (`chunkIndexing` says when they are done). Returns the closed chunk's name when it closed one.
 */
export async function noteLiveRows(handle: Db, added: number): Promise<string | undefined> {
  const closed = await onSqlite(handle, (sqlite) => closeWhenFull(sqlite, added, handle.logChunkRows));
  if (closed) {
    const built = (indexing.get(handle) ?? Promise.resolve()).then(() => indexInTurns(handle, closed));
    indexing.set(handle, built);
  }
  return closed;
}

/** Resolves once the index builds of the chunks closed so far on this handle have ended (built or given up). */
export const chunkIndexing = (handle: Db): Promise<void> => indexing.get(handle) ?? Promise.resolve();

/**
 * Builds a closed chunk's missing indexes one statement per turn on the connection. A build that fails (the
 * handle closed, the lock held past the wait) leaves the rest to the next start (setUpLogChunks).
 */
async function indexInTurns(handle: Db, table: string): Promise<void> {
  try {
    for (const [short] of CHUNK_INDEXES) {
      await new Promise((resolve) => setTimeout(resolve, INDEX_BUILD_PAUSE_MS));
      await onSqlite(handle, (sqlite) => buildChunkIndexes(sqlite, table, [short]));
    }
  } catch {}
}

function closeWhenFull(
  sqlite: Sqlite,
  added: number,
  chunkRows = DEFAULT_LOG_CHUNK_ROWS,
): string | undefined {
  let count = liveCounts.get(sqlite);
  if (count === undefined) {
    count = (sqlite.prepare(`SELECT count(*) AS n FROM ${quote(LIVE)}`).get() as { n: number }).n;
  } else count += added;
  if (count < chunkRows) {
    liveCounts.set(sqlite, count);
    return undefined;
  }
  liveCounts.delete(sqlite);
  const closed = rollLogChunk(sqlite);
  liveCounts.set(sqlite, 0);
  return closed;
}
