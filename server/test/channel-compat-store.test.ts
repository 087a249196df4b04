import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../src/db/index.ts';
import type { Matrix } from '../src/modules/channels/compat/matrix.ts';
import { deleteRunsOf, latestRun, listRuns, saveRun } from '../src/modules/channels/compat/store.ts';
import { DATABASES } from './support/databases.ts';

/** The table of compatibility runs (migration 014) on every engine: write, read newest first, delete. */
const cell = (verdict: 'pass' | 'fail', reason = '') => ({ verdict, reason });
const matrix = (reason: string): Matrix => {
  const row = {
    openai: cell('pass'),
    responses: cell('pass'),
    anthropic: cell('fail', reason),
    gemini: cell('pass'),
  };
  return { plain: row, stream: row, tools: row, thinking: row, image: row };
};

describe.each(DATABASES)('channel compatibility runs on $name', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const made = await engine.create({ migrated: true });
    drop = made.drop;
    db = await openDatabase(made.dsn, made.sqlitePath);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const run = (channel: number, at: number, reason: string) => ({
    channel_id: channel,
    created_at: at,
    user_id: 7,
    trigger: 'manual' as const,
    model: 'claude-sonnet-4-5',
    estimated_quota: 2 ** 40 + 1,
    charged_quota: 2 ** 33,
    passed: 15,
    failed: 5,
    results: matrix(reason),
  });

  it('keeps each run whole, lists them newest first, and forgets a deleted channel’s', async () => {
    await saveRun(db, run(1, 100, 'HTTP 400: 签名无效 `signature`'));
    await saveRun(db, run(1, 200, 'second'));
    await saveRun(db, run(2, 150, 'other channel'));
    const runs = await listRuns(db, 1, 10);
    expect(runs.map((r) => r.created_at)).toEqual([200, 100]);
    expect(runs[1]).toMatchObject({
      channel_id: 1,
      estimated_quota: 2 ** 40 + 1,
      charged_quota: 2 ** 33,
      trigger: 'manual',
      results: matrix('HTTP 400: 签名无效 `signature`'),
    });
    expect((await latestRun(db, 1))?.created_at).toBe(200);
    await deleteRunsOf(db.db, [1]);
    expect(await listRuns(db, 1, 10)).toEqual([]);
    expect(await latestRun(db, 1)).toBeNull();
    expect((await listRuns(db, 2, 10)).map((r) => r.results.tools.anthropic.reason)).toEqual([
      'other channel',
    ]);
  });
});
