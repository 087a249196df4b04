import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../src/modules/auth/access-token.ts';
import { exportQuotaData } from '../src/modules/data/export.ts';
import { hourlySums } from '../src/modules/logs/stat-hourly.ts';
import { consumeLogRow } from './support/console-rows.ts';
import { HOUR, query } from './support/hourly-logs.ts';
import { seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('hourly buckets with the usage log in its own database, after an upgrade', () => {
  let server: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-hourly-'));
    server = await startServer({ env: { LOG_SQL_DSN: `local:${join(dir, 'logs.db')}` } });
  });
  afterAll(() => server?.close());

  it('keeps the dashboard history exported before log_hourly existed, and the stat reads the log database', async () => {
    const { id } = await seedUser(server.ctx, { quota: 0, role: 10, username: 'root2' });
    const headers = {
      authorization: `Bearer ${await issueAccessToken(server.ctx, id)}`,
      'new-api-user': String(id),
    };
    const hour = Math.floor(Date.now() / 1000 / HOUR) * HOUR - 10 * HOUR;
    // History whose log rows retention deleted long ago: only quota_data has it.
    await server.ctx.db.db
      .insertInto('quota_data')
      .values([
        {
          user_id: 7,
          username: 'old',
          model_name: 'gpt-4o',
          created_at: hour - 48 * HOUR,
          count: 3,
          quota: 30,
          token_used: 300,
        },
        {
          user_id: 8,
          username: 'old2',
          model_name: 'gpt-4o',
          created_at: hour - 48 * HOUR,
          count: 1,
          quota: 5,
          token_used: 50,
        },
      ])
      .execute();
    const rows = [
      consumeLogRow({
        user_id: 1,
        username: 'a',
        model_name: 'gpt-4o',
        created_at: hour + 10,
        quota: 40,
        prompt_tokens: 4,
        completion_tokens: 1,
      }),
      consumeLogRow({
        user_id: 2,
        username: 'b',
        model_name: 'gpt-4o',
        created_at: hour + 4000,
        quota: 60,
        prompt_tokens: 6,
        completion_tokens: 2,
      }),
    ];
    await server.ctx.logDb.db.insertInto('logs').values(rows).execute();
    await exportQuotaData(server.ctx);

    expect(await server.ctx.db.db.selectFrom('log_hourly').selectAll().execute()).toEqual([]);
    const data = await fetch(`${server.url}/api/data/?start_timestamp=0&end_timestamp=0`, { headers }).then(
      (r) => r.json() as any,
    );
    expect(data.data).toEqual([
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour - 48 * HOUR,
        count: 4,
        quota: 35,
        token_used: 350,
      },
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour,
        count: 1,
        quota: 40,
        token_used: 5,
      },
      {
        id: 0,
        user_id: 0,
        username: '',
        model_name: 'gpt-4o',
        created_at: hour + HOUR,
        count: 1,
        quota: 60,
        token_used: 8,
      },
    ]);

    const f = { start_timestamp: hour - HOUR, end_timestamp: hour + 3 * HOUR };
    expect(await hourlySums(server.ctx.logDb, f)).toEqual({
      quota: 100,
      prompt_tokens: 10,
      completion_tokens: 3,
    });
    const st = await fetch(`${server.url}/api/log/stat?${query(f)}`, { headers }).then(
      (r) => r.json() as any,
    );
    expect(st.data).toMatchObject({ quota: 100, prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
  });
});
