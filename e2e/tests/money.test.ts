import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { seedToken } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, poll, ROOT, settle, shootAll, toastAfter } from '../support/index.ts';

/**
 * Small amounts read as what they are (issue 27, point 2): a call that cost 8 quota ($0.000016) is not $0.00 in
 * the log's tags, the cost column, the margin totals or the token list; the token quota field takes dollars.
 */

const rows = (p: Page) => p.locator('.ant-table-tbody tr.ant-table-row');

const admin = await openConsole();
const { gw, page } = admin;
const root = await loginViaApi(page, gw.url, ROOT, '/personal');
const token = await seedToken(gw.ctx, { userId: Number(root.id), remain: 1_000_000 });
await gw.ctx.db.db.updateTable('tokens').set({ used_quota: 8 }).where('id', '=', token.id).execute();
await gw.ctx.logDb.db.deleteFrom('logs').execute();
await gw.ctx.logDb.db
  .insertInto('logs')
  .values({
    user_id: Number(root.id),
    username: 'root',
    created_at: Math.floor(Date.now() / 1000) - 30,
    type: 2,
    content: '',
    token_name: 'small-key',
    token_id: token.id,
    model_name: 'gpt-4o-mini',
    quota: 8,
    cost: 5,
    prompt_tokens: 10,
    completion_tokens: 25,
    use_time: 1,
    first_time: 0,
    is_stream: 0,
    channel_id: 0,
    group: 'default',
    ip: '',
    request_id: '',
    other: JSON.stringify({
      content_code: 'consume',
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1,
      model_price: -1,
    }),
  } as never)
  .execute();

describe('money with enough digits', () => {
  test('the log: summary tags, margin tags, the cost column and the margin totals', async () => {
    await page.goto(`${gw.url}/log`);
    await settle(page);
    await poll(() => page.getByTestId('log-stats').innerText()).toContain('消耗额度：$0.000016');
    expect(await page.getByTestId('log-stat-cost').innerText()).toContain('$0.00001');
    expect(await page.getByTestId('log-stat-margin').innerText()).toContain('$0.000006');
    expect(await rows(page).first().innerText()).toContain('$0.000016');
    expect(await page.getByTestId('log-stats').innerText()).not.toContain('$0.00 ');
    await shootAll(page, 'money-log');
    await page.getByTestId('log-margin-details').click();
    const panel = page.getByTestId('margin-panel');
    const stat = (title: string) =>
      panel.locator('.ant-statistic').filter({ hasText: title }).locator('.ant-statistic-content');
    await poll(() => stat('收入').innerText()).toBe('$0.000016');
    expect(await stat('上游成本').innerText()).toBe('$0.00001');
    expect(await stat('毛利').first().innerText()).toBe('$0.000006');
    await page.keyboard.press('Escape');
  });

  test('the token list shows what a token used', async () => {
    await page.goto(`${gw.url}/token`);
    await settle(page);
    await poll(() => rows(page).first().innerText()).toContain('$0.000016');
  });

  test('the token quota field takes dollars and shows the quota it stores', async () => {
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('two-dollars');
    await page.locator('#token_remain_quota').fill('2');
    const item = page.locator('.ant-form-item').filter({ has: page.locator('#token_remain_quota') });
    await poll(() => item.innerText()).toContain('= 1,000,000 额度');
    await shootAll(page, 'money-token-drawer', async (p) => {
      await p.getByRole('button', { name: /添加令牌|Add token/ }).click();
      await p.locator('#token_name').fill('two-dollars');
      await p.locator('#token_remain_quota').fill('2');
    });
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('two-dollars');
    await page.locator('#token_remain_quota').fill('2');
    await toastAfter(page, '令牌创建成功！', () => page.getByTestId('token-submit').click());
    const row = await gw.ctx.db.db
      .selectFrom('tokens')
      .select('remain_quota')
      .where('name', '=', 'two-dollars')
      .executeTakeFirstOrThrow();
    expect(Number(row.remain_quota)).toBe(1_000_000);
    expect(admin.errors).toEqual([]);
  });
});
