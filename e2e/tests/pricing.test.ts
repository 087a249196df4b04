import { describe, expect, test } from 'vitest';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import { openConsole, settle, shootAll } from '../support/index.ts';

/** The public price list as a visitor sees it: availability per group, switching groups, fuzzy search. */

const opened = await openConsole();
const { gw, page } = opened;
await gw.ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 0.5 }));
await gw.ctx.options.set(
  'ModelRatio',
  JSON.stringify({ 'gpt-4o-mini': 0.075, 'gpt-4o': 1.25, 'vip-only-model': 2 }),
);
await gw.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'gpt-4o': 4 }));
await gw.ctx.options.set('ModelPrice', JSON.stringify({ 'dall-e-3': 0.04 }));
await seedChannel(gw.ctx, {
  baseUrl: 'http://127.0.0.1:9',
  key: 'k',
  models: ['gpt-4o-mini', 'gpt-4o', 'dall-e-3'],
  group: 'default,vip',
});
await seedChannel(gw.ctx, {
  baseUrl: 'http://127.0.0.1:9',
  key: 'k',
  models: ['vip-only-model'],
  group: 'vip',
});
await page.goto(`${gw.url}/pricing`);

const row = (name: string) =>
  page.locator('tbody tr').filter({ has: page.locator('.ant-tag', { hasText: new RegExp(`^${name}$`) }) });

describe('pricing page', () => {
  test('lists the models usable by the default group first, with prices per 1M tokens or per call', async () => {
    await settle(page);
    await expect.poll(() => page.getByText('未登录，显示默认分组的价格，默认分组倍率为：1').count()).toBe(1);
    const names = await page.locator('tbody tr td:nth-child(3) .ant-tag').allInnerTexts();
    expect(names).toEqual(['dall-e-3', 'gpt-4o', 'gpt-4o-mini', 'vip-only-model']);
    expect(await row('gpt-4o').getByText('提示 $2.5 / 1M Tokens').count()).toBe(1);
    expect(await row('gpt-4o').getByText('补全 $10 / 1M Tokens').count()).toBe(1);
    expect(await row('dall-e-3').getByText('$0.04 / 次').count()).toBe(1);
    expect(await row('vip-only-model').getByLabel('default 分组不可用').count()).toBe(1);
  });

  test("clicking a group shows that group's prices and availability", async () => {
    await row('vip-only-model').locator('.ant-tag', { hasText: /^vip$/ }).click();
    await expect
      .poll(() => page.locator('.ant-message').getByText('已切换至 vip 分组，倍率 0.5').count())
      .toBeGreaterThan(0);
    await expect.poll(() => row('gpt-4o').getByText('提示 $1.25 / 1M Tokens').count()).toBe(1);
    expect(await row('vip-only-model').getByLabel('vip 分组可用').count()).toBe(1);
    expect(await row('dall-e-3').getByText('$0.02 / 次').count()).toBe(1);
  });

  test('fuzzy search finds a model by the letters in order', async () => {
    await page.getByPlaceholder('模糊搜索模型名称').fill('4omini');
    await expect
      .poll(() => page.locator('tbody tr td:nth-child(3) .ant-tag').allInnerTexts())
      .toEqual(['gpt-4o-mini']);
    await page.getByPlaceholder('模糊搜索模型名称').fill('');
    await expect.poll(() => page.locator('tbody tr.ant-table-row').count()).toBe(4);
  });

  test('screenshots', async () => {
    await shootAll(page, 'pricing');
    expect(opened.errors).toEqual([]);
  });
});
