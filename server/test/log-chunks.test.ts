import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database as Sqlite } from 'better-sqlite3';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { migrate, openDatabase } from '../src/db/index.ts';
import { CHUNK_INDEXES, chunkTables, LIVE } from '../src/db/log-chunks/layout.ts';
import { chunkIndexing, noteLiveRows } from '../src/db/log-chunks/rollover.ts';
import { Balance } from '../src/ledger/balance.ts';
import type { LogRow } from '../src/ledger/log-insert.ts';
import { LedgerWriter } from '../src/ledger/writer.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { deleteLogsBefore, listLogs, statLogs } from '../src/modules/logs/store.ts';
import { runRetention } from '../src/modules/retention/job.ts';
import { consumeLogRow } from './support/console-rows.ts';

/**
 * The usage log on SQLite in chunks (db/log-chunks/): rows written by the ledger's writer thread into the live
 * table, closed as indexed chunks every LOG_CHUNK_ROWS rows, read as one `logs` table, dropped whole by
 * retention.
 */
describe('usage log chunks (SQLite)', () => {
  const open: AppContext[] = [];
  afterEach(async () => {
    for (const ctx of open.splice(0)) await ctx.close();
  });

  const DAY = 86_400;
  const now = Math.floor(Date.now() / 1000);

  async function start(path: string, chunkRows = 50, env: Record<string, string> = {}) {
    const config = loadConfig({
      SQLITE_PATH: path,
      SESSION_SECRET: 'log-chunks',
      BATCH_UPDATE_INTERVAL: '3600',
      LOG_CHUNK_ROWS: String(chunkRows),
      ...env,
    });
    const ctx = await createContext(config, pino({ level: 'silent' }));
    open.push(ctx);
    return ctx;
  }

  /** Writes `n` log rows through the ledger writer (on its thread), `perFlush` per transaction. */
  async function writeRows(ctx: AppContext, n: number, perFlush: number, at: (i: number) => number) {
    const writer = new LedgerWriter(ctx);
    const user = new Balance(1_000_000);
    for (let i = 0; i < n; i++) {
      const log: LogRow = {
        ...consumeLogRow({
          user_id: 1 + (i % 3),
          created_at: at(i),
          username: `u${1 + (i % 3)}`,
          model_name: i % 2 ? 'gpt-4o' : 'claude-3-5-haiku',
          quota: 10,
          prompt_tokens: 3,
          completion_tokens: 2,
          request_id: `r${i}`,
        }),
        content: '',
        other: '',
        cost: 0,
      } as LogRow;
      writer.push({ userId: 1, user, tokenId: 0, channelId: 0, quota: 0, countRequest: false, log });
      if ((i + 1) % perFlush === 0) await writer.flush();
    }
    await writer.flush();
  }

  const tmpDb = () => join(mkdtempSync(join(tmpdir(), 'gw-log-chunks-')), 'gateway.db');
  // From sqlite_master, not PRAGMA index_list: a pragma answers from the connection's cached schema, which does
  // not see a chunk another connection (the writer thread) has just closed.
  const indexesOf = (sqlite: Sqlite, table: string) =>
    (
      sqlite
        .prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`)
        .get(table) as { n: number }
    ).n;
  const indexCount = (ctx: AppContext, table: string) => indexesOf(ctx.logDb.sqlite!, table);
  /** A closed chunk's indexes are built in the background after the flush that closed it. */
  const indexed = (ctx: AppContext, table: string) =>
    vi.waitFor(() => expect(indexCount(ctx, table)).toBe(CHUNK_INDEXES.length), { timeout: 5000 });
  const rowsOf = (ctx: AppContext, table: string) =>
    (ctx.logDb.sqlite?.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number } | undefined)
      ?.n ?? -1;

  it('closes the live table as an indexed chunk every LOG_CHUNK_ROWS rows and reads all of them as one log', async () => {
    const ctx = await start(tmpDb());
    await writeRows(ctx, 130, 30, (i) => now - 1000 + i);
    const chunks = chunkTables(ctx.logDb.sqlite!);
    // logs_c1 is the table the migrations made (empty here); the writer closed the live table at 60 and 120 rows.
    expect(chunks).toEqual(['logs_c1', 'logs_c2', 'logs_c3']);
    expect(chunks.map((t) => rowsOf(ctx, t))).toEqual([0, 60, 60]);
    expect(rowsOf(ctx, LIVE)).toBe(10);
    for (const t of chunks.slice(1)) await indexed(ctx, t);
    expect(indexCount(ctx, LIVE)).toBe(1);

    const page = await listLogs(ctx.logDb, {}, 1, 100);
    expect(page.total).toBe(130);
    expect(page.rows[0].request_id).toBe('r129');
    expect(page.rows.map((r) => r.request_id)).toEqual(Array.from({ length: 100 }, (_, k) => `r${129 - k}`));
    const ids = page.rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(100);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    // A filter served by a closed chunk's index and by the live table's scan alike.
    const own = await listLogs(ctx.logDb, { user_id: 2, model_name: 'gpt-4o' }, 1, 100);
    const expected = Array.from({ length: 130 }, (_, i) => i)
      .filter((i) => 1 + (i % 3) === 2 && i % 2 === 1)
      .reverse()
      .map((i) => `r${i}`);
    expect(own.rows.map((r) => r.request_id)).toEqual(expected);
    const stat = await statLogs(ctx.logDb, { start_timestamp: now - 2000, end_timestamp: now + 10 });
    expect([stat.quota, stat.prompt_tokens, stat.completion_tokens]).toEqual([1300, 390, 260]);
  });

  it("answers the flush that closes a chunk before building the chunk's indexes, then builds them one per write lock", async () => {
    const path = tmpDb();
    const db = await openDatabase('', path);
    await migrate(db);
    db.logChunkRows = 50;
    const other = new SQLite(path);
    try {
      for (let i = 0; i < 60; i++)
        await db.db
          .insertInto('logs')
          .values(consumeLogRow({ user_id: 1, created_at: now }))
          .execute();
      const count = (table: string) => indexesOf(db.sqlite!, table);
      expect(await noteLiveRows(db, 60)).toBe('logs_c2');
      // Closed, with only the (created_at, id) index it had while live; the file's write lock is free.
      expect(count('logs_c2')).toBe(1);
      other.exec('BEGIN IMMEDIATE; COMMIT');
      // While another connection holds the lock, no build goes ahead; once it lets go, all of them do.
      other.exec('BEGIN IMMEDIATE');
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(count('logs_c2')).toBe(1);
      other.exec('COMMIT');
      await chunkIndexing(db);
      expect(count('logs_c2')).toBe(CHUNK_INDEXES.length);
      expect(count(LIVE)).toBe(1);
    } finally {
      other.close();
      await db.close();
    }
  });

  it('keeps ids growing across a restart and builds at start what a cut-short index build left out', async () => {
    const path = tmpDb();
    let ctx = await start(path);
    await writeRows(ctx, 70, 70, (i) => now - 100 + i);
    await indexed(ctx, 'logs_c2');
    const sqlite = ctx.logDb.sqlite!;
    // As if the process had died while building logs_c2's indexes: only part of them exists.
    const names = sqlite
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'logs_c2'`)
      .all() as Array<{ name: string }>;
    for (const { name } of names.slice(0, 9)) sqlite.exec(`DROP INDEX "${name}"`);
    await ctx.close();
    open.length = 0;

    ctx = await start(path);
    expect(indexCount(ctx, 'logs_c2')).toBe(CHUNK_INDEXES.length);
    await ctx.logDb.db
      .insertInto('logs')
      .values(consumeLogRow({ user_id: 9, created_at: now }))
      .execute();
    const rows = await ctx.logDb.db.selectFrom('logs').select(['id', 'user_id']).orderBy('id').execute();
    expect(rows).toHaveLength(71);
    expect(new Set(rows.map((r) => r.id)).size).toBe(71);
    expect(rows.at(-1)).toEqual({ id: rows[69].id + 1, user_id: 9 });
    expect(rowsOf(ctx, LIVE)).toBe(1);
  });

  it('writes, updates and deletes single rows through the logs view, with the table defaults', async () => {
    const ctx = await start(tmpDb());
    await writeRows(ctx, 60, 60, () => now);
    // Only some columns, as an older writer would: the rest take the table's defaults.
    ctx.logDb.sqlite
      ?.prepare(`INSERT INTO logs (user_id, created_at, type, content) VALUES (4, ?, 3, 'top up')`)
      .run(now);
    const row = await ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', 4)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: 3, content: 'top up', username: '', quota: 0, cost: 0, group: '' });
    const closed = await ctx.logDb.db
      .selectFrom('logs')
      .select('id')
      .where('request_id', '=', 'r5')
      .executeTakeFirstOrThrow();
    await ctx.logDb.db.updateTable('logs').set({ content: 'noted' }).where('id', '=', closed.id).execute();
    expect(ctx.logDb.sqlite?.prepare('SELECT content FROM logs_c2 WHERE id = ?').get(closed.id)).toEqual({
      content: 'noted',
    });
    await ctx.logDb.db.deleteFrom('logs').where('id', 'in', [closed.id, row.id]).execute();
    expect(rowsOf(ctx, 'logs_c2') + rowsOf(ctx, LIVE)).toBe(59);
  });

  it('drops the chunks older than the cutoff whole and deletes the older rows of the rest', async () => {
    const ctx = await start(tmpDb());
    // Rows 0-59 ten days old, 60-119 from ten days ago to now, 120-139 new.
    await writeRows(ctx, 140, 20, (i) =>
      i < 60 ? now - 10 * DAY : i < 120 ? now - (120 - i) * 4 * 3600 : now,
    );
    expect(chunkTables(ctx.logDb.sqlite!)).toEqual(['logs_c1', 'logs_c2', 'logs_c3']);
    await ctx.options.set('LogRetentionDays', '5');
    const result = await runRetention(ctx, { rest: async () => {} });
    // Chunk 2 (rows 0-59) and the empty first chunk go whole; of chunk 3, rows older than five days.
    expect(chunkTables(ctx.logDb.sqlite!)).toEqual(['logs_c3']);
    const fiveDaysAgo = now - 5 * DAY; // the cutoff, rounded down to its hour
    const olderInChunk3 = Array.from({ length: 60 }, (_, k) => now - (60 - k) * 4 * 3600).filter(
      (t) => t < fiveDaysAgo - (fiveDaysAgo % 3600),
    ).length;
    expect(result.logs).toBe(60 + olderInChunk3);
    const left = await listLogs(ctx.logDb, {}, 1, 100);
    expect(left.total).toBe(140 - result.logs);

    const removed = await deleteLogsBefore(ctx, now + 1);
    expect(removed).toBe(left.total);
    expect((await listLogs(ctx.logDb, {}, 1, 10)).total).toBe(0);
  });

  /** Records the writes to the usage log's tables and the dashboard buckets made on this thread's connection. */
  function recordLogWrites(sqlite: Sqlite): string[] {
    const seen: string[] = [];
    const note = (source: string) => {
      if (/^\s*(insert|delete|drop)\b.*\b(logs_c\d+|logs_live|logs|quota_data|log_hourly)\b/is.test(source))
        seen.push(source.replace(/\s+/g, ' ').slice(0, 60));
    };
    const prepare = sqlite.prepare.bind(sqlite);
    const exec = sqlite.exec.bind(sqlite);
    sqlite.prepare = ((source: string) => {
      note(source);
      return prepare(source);
    }) as typeof sqlite.prepare;
    sqlite.exec = ((source: string) => {
      note(source);
      return exec(source);
    }) as typeof sqlite.exec;
    return seen;
  }

  it.each([
    ['the writer thread', 'true'],
    ['the main connection when the thread is off', 'false'],
  ])('runs the dashboard export and the log deletions on %s', async (_, thread) => {
    const ctx = await start(tmpDb(), 50, { SQLITE_WRITER_THREAD: thread });
    // Rows 0-59 ten days old (one chunk), 60-139 of the last two hours.
    await writeRows(ctx, 140, 20, (i) => (i < 60 ? now - 10 * DAY : now - (139 - i) * 60));
    const onMain = recordLogWrites(ctx.db.sqlite!);

    const exported = await exportQuotaData(ctx);
    expect(exported.buckets).toBeGreaterThan(0);
    const buckets = await ctx.db.db
      .selectFrom('quota_data')
      .select((eb) => [eb.fn.sum<number>('quota').as('quota'), eb.fn.sum<number>('count').as('count')])
      .executeTakeFirstOrThrow();
    expect([Number(buckets.quota), Number(buckets.count)]).toEqual([1400, 140]);

    await ctx.options.set('LogRetentionDays', '5');
    expect((await runRetention(ctx, { rest: async () => {} })).logs).toBe(60);
    expect(await deleteLogsBefore(ctx, now + 1)).toBe(80);
    expect((await listLogs(ctx.logDb, {}, 1, 10)).total).toBe(0);

    if (thread === 'true') expect(onMain).toEqual([]);
    else {
      expect(onMain.some((s) => /insert into "quota_data"/i.test(s))).toBe(true);
      expect(onMain.some((s) => /^DROP TABLE "logs_c2"/.test(s))).toBe(true);
      expect(onMain.some((s) => /^DELETE FROM "logs_live"/.test(s))).toBe(true);
    }
  });
});
