import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Usage log rows go to LOG_SQL_DSN's database when it is set, in one transaction per flush, none lost. */
describe('relay: usage log rows in a separate SQLite log database', () => {
  let server: TestServer;
  let mock: MockUpstream;
  const MODEL = 'gpt-4.1-nano-2025-04-14';

  beforeAll(async () => {
    mock = await startMockUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'gw-relay-logdb-'));
    server = await startServer({
      env: { LOG_SQL_DSN: `local:${join(dir, 'logs.db')}`, BATCH_UPDATE_INTERVAL: '3600' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('writes every row of a flush to the log database and none to the main one', async () => {
    const userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    const { apiKey } = await seedToken(server.ctx, { userId, remain: 10_000_000 });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await Promise.all(
      Array.from({ length: 25 }, () =>
        client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      ),
    );
    await flushLedger(server.ctx);
    const count = async (db: typeof server.ctx.db) =>
      Number(
        (
          await db.db
            .selectFrom('logs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('type', '=', 2)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count(server.ctx.logDb)).toBe(25);
    expect(await count(server.ctx.db)).toBe(0);
    const used = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const logged = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.sum<number>('quota').as('q'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(logged.q)).toBe(used.used_quota);
    expect(used.used_quota).toBeGreaterThan(0);
  });
});
