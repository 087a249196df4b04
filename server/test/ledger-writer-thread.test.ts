import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { openDatabase } from '../src/db/index.ts';
import { Balance } from '../src/ledger/balance.ts';
import type { LogRow } from '../src/ledger/log-insert.ts';
import { LogPacker } from '../src/ledger/packed-logs.ts';
import { WriterThread } from '../src/ledger/worker/thread.ts';
import { LedgerWriter } from '../src/ledger/writer.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { seedToken, seedUser } from './support/relay-seed.ts';
import { threadNiceValues } from './support/thread-nice.ts';

/** The ledger writer on SQLite: its transaction runs on a thread of its own, or here for an in-memory database. */
describe('ledger writer thread (SQLite)', () => {
  const open: AppContext[] = [];
  afterEach(async () => {
    for (const ctx of open.splice(0)) await ctx.close();
  });

  async function setup(sqlitePath: string) {
    const config = loadConfig({
      SQLITE_PATH: sqlitePath,
      SESSION_SECRET: 'writer-thread',
      BATCH_UPDATE_INTERVAL: '3600',
    });
    const ctx = await createContext(config, pino({ level: 'silent' }));
    open.push(ctx);
    const writer = new LedgerWriter(ctx);
    const { id: userId, username } = await seedUser(ctx, { quota: 1_000_000 });
    const { id: tokenId } = await seedToken(ctx, { userId, remain: 500_000 });
    const user = new Balance(1_000_000);
    const token = new Balance(500_000);
    const charge = (quota: number, i: number) => {
      user.pending += quota;
      token.pending += quota;
      writer.push({
        userId,
        user,
        tokenId,
        token,
        channelId: 0,
        quota,
        countRequest: true,
        log: {
          user_id: userId,
          created_at: Math.floor(Date.now() / 1000),
          type: 2,
          content: '',
          username,
          token_name: 't',
          token_id: tokenId,
          model_name: 'gpt-4o-mini',
          quota,
          cost: 0,
          prompt_tokens: 10,
          completion_tokens: 5,
          use_time: 1,
          first_time: 0,
          is_stream: 0,
          channel_id: 0,
          group: 'default',
          ip: '',
          request_id: `r${i}`,
          other: '',
        },
      });
    };
    const books = async (db = ctx.db) => {
      const u = await db.db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const t = await db.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', tokenId)
        .executeTakeFirstOrThrow();
      const l = await db.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum<number>('quota').as('q'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return { user: u, token: t, logged: Number(l.q ?? 0) };
    };
    return { ctx, writer, user, token, charge, books };
  }

  it('commits a flush on the thread, moves each balance once, and a console write made meanwhile goes through', async () => {
    const { ctx, writer, user, token, charge, books } = await setup(
      join(mkdtempSync(join(tmpdir(), 'gw-writer-thread-')), 'gateway.db'),
    );
    for (let i = 0; i < 3000; i++) charge(7, i);
    const flushing = writer.flush();
    // A console write while the thread may hold the write lock: it waits on a timer and then succeeds.
    await ctx.db.db.updateTable('users').set({ display_name: 'renamed' }).where('id', '=', 1).execute();
    await flushing;
    expect(await books()).toEqual({
      user: { quota: 1_000_000 - 21_000, used_quota: 21_000, request_count: 3000 },
      token: { remain_quota: 500_000 - 21_000, used_quota: 21_000 },
      logged: 21_000,
    });
    expect([user.db, user.pending, user.available]).toEqual([1_000_000 - 21_000, 0, 1_000_000 - 21_000]);
    expect([token.db, token.pending]).toEqual([500_000 - 21_000, 0]);
    // The thread took the file's checkpoints over: this connection no longer runs them at its commits.
    expect(ctx.db.sqlite?.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });

  it('writes what is still queued at shutdown, then stops the thread', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gw-writer-thread-')), 'gateway.db');
    const { ctx, writer, charge } = await setup(path);
    charge(5, 0);
    await writer.flush();
    charge(11, 1);
    await ctx.close();
    open.length = 0;
    const again = await openDatabase('', path);
    try {
      const row = await again.db
        .selectFrom('users')
        .select(['used_quota', 'request_count'])
        .where('username', '!=', 'root')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ used_quota: 16, request_count: 2 });
    } finally {
      await again.close();
    }
  });

  it('checkpoints the WAL once enough log rows were written since the last checkpoint, not after every commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-writer-thread-'));
    const path = join(dir, 'gateway.db');
    const { ctx } = await setup(path);
    ctx.db.sqlite?.pragma('wal_autocheckpoint = 0');
    ctx.db.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
    const thread = new WriterThread({
      cacheMb: 2,
      logChunkRows: 500_000,
      checkpointEveryMs: 3_600_000,
      checkpointAfterRows: 20,
    });
    const log = (i: number): LogRow => ({
      ...consumeLogRow({
        user_id: 1,
        created_at: Math.floor(Date.now() / 1000),
        request_id: `checkpoint-${i}`,
      }),
      cost: 0,
    });
    const commit = (from: number, n: number) => {
      const packer = new LogPacker();
      for (let i = 0; i < n; i++) packer.add(log(from + i));
      return thread.commit(path, { users: [], tokens: [], channels: [], spends: [], logs: packer.take() });
    };
    /** The rows the database file holds without its WAL: what checkpoints have copied into it. */
    const inFileAlone = async () => {
      const copy = join(dir, `alone-${Math.random()}.db`);
      copyFileSync(path, copy);
      const alone = await openDatabase('', copy);
      try {
        const r = await alone.db
          .selectFrom('logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('request_id', 'like', 'checkpoint-%')
          .executeTakeFirstOrThrow();
        return Number(r.n);
      } finally {
        await alone.close();
      }
    };
    try {
      await commit(0, 10);
      // Messages are handled in order: a checkpoint following the first commit would be over by now.
      await commit(10, 0);
      expect(await inFileAlone()).toBe(0);
      await commit(10, 10);
      await commit(20, 0);
      expect(await inFileAlone()).toBe(20);
    } finally {
      await thread.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'runs at a lower priority than the event loop, so a flush yields the core to requests',
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'gw-writer-thread-')), 'gateway.db');
      const { writer, charge } = await setup(path);
      // The writer thread starts with the first flush (seeding may have started others, such as hashing's).
      const before = threadNiceValues();
      charge(3, 0);
      await writer.flush();
      const started = [...threadNiceValues()].filter(([tid]) => !before.has(tid));
      expect(started.filter(([, nice]) => nice === 10)).toHaveLength(1);
      expect(threadNiceValues().get(process.pid)).toBe(before.get(process.pid));
    },
  );

  it('writes an in-memory database on the main thread (a second connection could not open it)', async () => {
    const { ctx, writer, user, charge, books } = await setup(':memory:');
    charge(9, 0);
    await writer.flush();
    expect((await books()).user.used_quota).toBe(9);
    expect(user.pending).toBe(0);
    expect(ctx.db.sqlite?.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});
