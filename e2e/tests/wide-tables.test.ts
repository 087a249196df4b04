import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { consumeLogRow } from '../../server/test/support/console-rows.ts';
import { seedChannel, seedToken } from '../../server/test/support/relay-seed.ts';
import {
  headerCell,
  LAPTOP,
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  settle,
  shootAll,
  todayAgo,
  visibleProblem,
} from '../support/index.ts';

/**
 * Issue 27 point 5: on a 1366 px laptop every column of the token list, the usage log and the channel list is
 * readable without scrolling sideways or hiding behind the pinned Actions column, and a very long channel name
 * (one saved before the 64-character cap) is cut with an ellipsis and shown whole in a tooltip.
 */
const LONG_NAME =
  `${'Azure OpenAI East US production deployment for the customer support assistant '.repeat(2).trim()}`.padEnd(
    158,
    '.',
  );

const opened = await openConsole({ locale: 'en-US', viewport: LAPTOP });
const { gw, page } = opened;
const root = await gw.ctx.db.db
  .selectFrom('users')
  .select(['id'])
  .where('username', '=', ROOT.username)
  .executeTakeFirstOrThrow();
const userId = Number(root.id);
const now = Math.floor(Date.now() / 1000);
const ago = todayAgo(600);
for (let i = 0; i < 3; i++)
  await seedToken(gw.ctx, { userId, remain: 1_000_000, expiredTime: now + (i + 1) * 86400 * 30 });
await seedChannel(gw.ctx, {
  baseUrl: 'https://api.example.com',
  key: 'sk-a',
  models: ['gpt-4o'],
  name: LONG_NAME,
});
await seedChannel(gw.ctx, {
  baseUrl: 'https://api.example.com',
  key: 'sk-b\nsk-c\nsk-d',
  models: ['gpt-4o-mini'],
  name: 'three keys',
  group: 'default,vip,enterprise',
});
const content = 'model price 2.5, completion ratio 4, group ratio 1, cache read 0.1 of input price; '.repeat(
  3,
);
await gw.ctx.logDb.db
  .insertInto('logs')
  .values([
    ...Array.from({ length: 6 }, (_, i) =>
      consumeLogRow({
        user_id: userId,
        username: ROOT.username,
        token_name: 'production-backend-service',
        model_name: 'claude-3-7-sonnet-20250219',
        created_at: ago(i * 60),
        quota: 123456 + i,
        prompt_tokens: 12345,
        completion_tokens: 2345,
        use_time: 12,
        first_time: 1500,
        is_stream: 1,
        channel_id: 1,
        content,
      }),
    ),
    consumeLogRow({
      user_id: userId,
      username: ROOT.username,
      type: 1,
      created_at: ago(600),
      quota: 10_000_000,
      content: 'Redeemed a code for $20.00',
    }),
  ])
  .execute();
await loginViaApi(page, gw.url, ROOT, '/token');

async function expectAllVisible(p: Page, titles: Array<string | RegExp>) {
  for (const title of titles) expect(await visibleProblem(headerCell(p, title)), String(title)).toBe('');
}

describe('tables at 1366 px', () => {
  test('the token list shows Expires beside the pinned Actions column, not under it', async () => {
    await settle(page);
    await poll(() => page.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(3);
    await expectAllVisible(page, ['Name', 'Status', 'Remaining', 'Expires', 'Actions']);
    // The creation time is the column that gives way below 1600 px.
    expect(await headerCell(page, 'Created').count()).toBe(0);
    await shootAll(page, 'wide-tokens');
  });

  test('the usage log shows Amount and Details without scrolling sideways', async () => {
    await page.goto(`${gw.url}/log`);
    await settle(page);
    await poll(() => page.locator('.ant-table-tbody tr.ant-table-row').count()).toBeGreaterThanOrEqual(7);
    await expectAllVisible(page, [
      'Time',
      'Channel',
      'User',
      'Type',
      'Model',
      'Prompt',
      'Completion',
      'Amount',
      'Details',
    ]);
    // A top-up is a credit under Amount, not a cost.
    const topUp = page.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: 'Top-up' });
    expect(await topUp.locator('.ant-typography-success').innerText()).toMatch(/^\+\$20\.0+$/);
    await shootAll(page, 'wide-log');
  });

  test('the channel list cuts a 158-character name and keeps every column on screen', async () => {
    await page.goto(`${gw.url}/channel`);
    await settle(page);
    await poll(() => page.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(2);
    await expectAllVisible(page, [
      'ID',
      'Name',
      'Groups',
      'Type',
      'Status',
      'Used / balance',
      'Priority',
      'Weight',
      'Actions',
    ]);
    expect(await headerCell(page, 'Response').count()).toBe(0);
    // The multi-key channel says how many of its keys are enabled.
    expect(await page.getByTestId('key-count-2').innerText()).toBe('3/3 keys');
    const name = page
      .locator('.ant-table-tbody td')
      .filter({ hasText: LONG_NAME.slice(0, 40) })
      .first();
    expect(await visibleProblem(name)).toBe('');
    expect(LONG_NAME).toHaveLength(158);
    const box = await name.boundingBox();
    expect(box?.width).toBeLessThan(260);
    await name.locator('[data-ellipsis]').hover();
    await poll(() => page.locator('.ant-tooltip:visible').innerText()).toContain(LONG_NAME);
    await shootAll(page, 'wide-channels');
  });
});
