import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../src/db/index.ts';

/**
 * The main connection to a SQLite file the ledger's writer thread also writes. While the thread holds the write
 * lock (a flush, or seconds building a closed log chunk's indexes), a write here waits on timers; the reads
 * queued behind it on the same connection must not wait with it: the relay rereads users' snapshots with them.
 * The other connection is a second real connection to the file, holding the lock as the thread does.
 */
describe('SQLite main connection while another connection holds the write lock', () => {
  const opened: Array<{ close(): unknown }> = [];
  afterEach(async () => {
    for (const c of opened.splice(0).reverse()) await c.close();
  });

  async function setup() {
    const path = join(mkdtempSync(join(tmpdir(), 'gw-lock-wait-')), 'gateway.db');
    const main: Db = await openDatabase('', path);
    opened.push(main);
    const db = main.db as unknown as Kysely<{ t: { id: number; v: string } }>;
    await sql`create table t (id integer primary key, v text not null)`.execute(db);
    await db.insertInto('t').values({ id: 1, v: 'before' }).execute();
    const other = new Sqlite(path);
    opened.push(other);
    other.pragma('journal_mode = WAL');
    other.pragma('busy_timeout = 0');
    return { main, db, other };
  }

  const settled = (p: Promise<unknown>) => {
    let done = false;
    void p.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    return () => done;
  };

  it('answers reads while a write waits for the lock, then writes once the lock is free', async () => {
    const { db, other } = await setup();
    other.exec('BEGIN IMMEDIATE');
    other.prepare('INSERT INTO t (id, v) VALUES (2, ?)').run('other');

    const write = db.updateTable('t').set({ v: 'after' }).where('id', '=', 1).execute();
    const written = settled(write);
    await new Promise((r) => setTimeout(r, 30));
    expect(written()).toBe(false);

    // Queued behind the waiting write on the same connection: answered now, from the last committed state.
    const rows = await db.selectFrom('t').select(['id', 'v']).orderBy('id').execute();
    expect(rows).toEqual([{ id: 1, v: 'before' }]);
    expect(written()).toBe(false);

    // A transaction queued behind it waits for the lock as well, and runs after it, in order.
    const tx = db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('t').select('v').where('id', '=', 1).executeTakeFirstOrThrow();
      await trx
        .insertInto('t')
        .values({ id: 3, v: `saw ${row.v}` })
        .execute();
    });
    const txDone = settled(tx);
    await new Promise((r) => setTimeout(r, 30));
    expect(txDone()).toBe(false);

    other.exec('COMMIT');
    await write;
    await tx;
    expect(await db.selectFrom('t').select(['id', 'v']).orderBy('id').execute()).toEqual([
      { id: 1, v: 'after' },
      { id: 2, v: 'other' },
      { id: 3, v: 'saw after' },
    ]);
  });

  it('keeps a transaction whole: a read asked for during it runs after it', async () => {
    const { db, other } = await setup();
    const order: string[] = [];
    const tx = db.transaction().execute(async (trx) => {
      order.push('tx begins');
      await trx.updateTable('t').set({ v: 'in tx' }).where('id', '=', 1).execute();
      await new Promise((r) => setTimeout(r, 20));
      order.push('tx ends');
    });
    await new Promise((r) => setTimeout(r, 5));
    const read = db
      .selectFrom('t')
      .select('v')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow()
      .then((r) => order.push(`read ${r.v}`));
    // The other connection cannot take the lock while the transaction holds it.
    expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/locked|busy/i);
    await Promise.all([tx, read]);
    expect(order).toEqual(['tx begins', 'tx ends', 'read in tx']);
  });
});
