import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDeltas, type DeltaTable } from '../src/ledger/account-deltas.ts';
import { tokenRow, userRow } from './support/account-rows.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

const USERS: DeltaTable = {
  table: 'users',
  columns: [
    { name: 'quota', op: '-' },
    { name: 'used_quota', op: '+' },
    { name: 'request_count', op: '+' },
  ],
};
const TOKENS: DeltaTable = {
  table: 'tokens',
  columns: [
    { name: 'remain_quota', op: '-' },
    { name: 'used_quota', op: '+' },
    { name: 'accessed_time', op: '=' },
  ],
};

// More than one statement's worth (256) and not a power of two, so chunks and padding rows both run.
const ACCOUNTS = 300;
// Near 2^53: the amounts must stay exact on every engine.
const BIG = 2 ** 52;

describe.each(DATABASES)('set-based account updates on $name', (engine) => {
  let server: TestServer;
  const ids: number[] = [];

  beforeAll(async () => {
    server = await startServer({ db: engine });
    const now = Math.floor(Date.now() / 1000);
    const rows = Array.from({ length: ACCOUNTS }, (_, i) =>
      userRow({ username: `delta-${i}`, display_name: '', quota: BIG + i, used_quota: i, created_at: now }),
    );
    await server.ctx.db.db.insertInto('users').values(rows).execute();
    const found = await server.ctx.db.db
      .selectFrom('users')
      .select('id')
      .where('username', 'like', 'delta-%')
      .execute();
    ids.push(...found.map((r) => Number(r.id)).sort((a, b) => a - b));
    await server.ctx.db.db
      .insertInto('tokens')
      .values(
        ids.slice(0, 3).map((id) =>
          tokenRow({
            user_id: id,
            key: `delta-key-${id}`,
            name: 'delta',
            created_time: now,
            remain_quota: 1000,
          }),
        ),
      )
      .execute();
  }, 60_000);
  afterAll(() => server?.close());

  it('moves every account of a batch exactly, in two statements for 300 users and one for 3 tokens', async () => {
    const { db } = server.ctx;
    const deltas = ids.map((id, i) => [id, i * 3 + 1, i * 3 + 1, (i % 4) + 1]);
    const tokens = await db.db
      .selectFrom('tokens')
      .select('id')
      .where('key', 'like', 'delta-key-%')
      .execute();
    const tokenIds = tokens.map((t) => Number(t.id));
    await db.db.transaction().execute(async (trx) => {
      await applyDeltas(db, trx, USERS, deltas.slice().reverse());
      await applyDeltas(
        db,
        trx,
        TOKENS,
        tokenIds.map((id) => [id, 7, 7, 1234]),
      );
    });
    const users = await db.db
      .selectFrom('users')
      .select(['id', 'quota', 'used_quota', 'request_count'])
      .where('username', 'like', 'delta-%')
      .orderBy('id')
      .execute();
    expect(users).toHaveLength(ACCOUNTS);
    users.forEach((u, i) => {
      expect(Number(u.quota)).toBe(BIG + i - (i * 3 + 1));
      expect(Number(u.used_quota)).toBe(i + i * 3 + 1);
      expect(Number(u.request_count)).toBe((i % 4) + 1);
    });
    const after = await db.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota', 'accessed_time'])
      .where('key', 'like', 'delta-key-%')
      .execute();
    for (const t of after)
      expect([Number(t.remain_quota), Number(t.used_quota), Number(t.accessed_time)]).toEqual([993, 7, 1234]);
    // No other row moved (the padding rows match nothing).
    const others = await db.db
      .selectFrom('users')
      .select((eb) => eb.fn.sum('used_quota').as('s'))
      .where('username', 'not like', 'delta-%')
      .executeTakeFirst();
    expect(Number(others?.s ?? 0)).toBe(0);
  });
});
