import { describe, expect, test } from 'vitest';
import { exportQuotaData } from '../../server/src/modules/data/export.ts';
import { consumeLogRow } from '../../server/test/support/console-rows.ts';
import { loginViaApi, openConsole, ROOT, settle, shootAll } from '../support/index.ts';

/** The data dashboard (/detail) over hourly rows exported from seeded usage logs. */
let rootId = 0;

const opened = await openConsole();
const { gw, page } = opened;
const root = await gw.ctx.db.db
  .selectFrom('users')
  .select(['id', 'username'])
  .where('username', '=', ROOT.username)
  .executeTakeFirstOrThrow();
rootId = Number(root.id);
const now = Math.floor(Date.now() / 1000);
const row = (model: string, ago: number, quota: number, tokens: number) =>
  consumeLogRow({
    user_id: Number(root.id),
    username: root.username,
    model_name: model,
    created_at: now - ago,
    type: 2,
    quota,
    prompt_tokens: tokens,
    completion_tokens: tokens,
    content: '',
    other: '{}',
  });
await gw.ctx.logDb.db
  .insertInto('logs')
  .values([
    row('gpt-4o-mini', 60, 1500, 100),
    row('gpt-4o-mini', 3 * 3600, 2500, 200),
    row('gpt-4o', 2 * 3600, 125000, 1000),
    row('gpt-4o', 5 * 3600, 250000, 2000),
    row('deepseek-chat', 7 * 3600, 30000, 500),
  ])
  .execute();
await exportQuotaData(gw.ctx);
await loginViaApi(page, gw.url, ROOT, '/detail');

describe('dashboard', () => {
  test('shows the range totals and charts of the last 24 hours', async () => {
    await settle(page);
    const stat = (title: string) =>
      page.locator('.ant-statistic').filter({ hasText: title }).locator('.ant-statistic-content');
    await expect.poll(() => stat('统计次数').innerText()).toBe('5');
    expect(await stat('统计 Tokens').innerText()).toBe('7,600');
    // 409000 quota at 500000 per US$: the amount as it is, not rounded to cents.
    expect(await stat('统计额度').innerText()).toBe('$0.818');
    expect(await page.locator('canvas').count()).toBeGreaterThan(0);
    await page.getByRole('tab', { name: '模型调用次数占比' }).click();
    await expect.poll(() => page.locator('canvas').count()).toBeGreaterThan(0);
  });

  test('counts a request logged after the last export at once, and says how fresh the figures are', async () => {
    const stat = (title: string) =>
      page.locator('.ant-statistic').filter({ hasText: title }).locator('.ant-statistic-content');
    const now = Math.floor(Date.now() / 1000);
    await gw.ctx.logDb.db
      .insertInto('logs')
      .values(
        consumeLogRow({
          user_id: rootId,
          username: ROOT.username,
          model_name: 'gpt-4o-mini',
          created_at: now - 5,
          type: 2,
          quota: 500000,
          prompt_tokens: 50,
          completion_tokens: 50,
          content: '',
          other: '{}',
        }),
      )
      .execute();
    // No export has run since: the figures are still current.
    await page.getByRole('button', { name: /刷\s*新/ }).click();
    await expect.poll(() => stat('统计次数').innerText()).toBe('6');
    expect(await stat('统计 Tokens').innerText()).toBe('7,700');
    expect(await stat('统计额度').innerText()).toBe('$1.82');
    const asOf = await page.getByTestId('dashboard-as-of').innerText();
    expect(asOf).toMatch(/^数据截至 \d\d:\d\d:\d\d，包含此刻之前的全部请求$/);
  });

  test('screenshots', async () => {
    await shootAll(page, 'dashboard');
    expect(opened.errors).toEqual([]);
  });
});
