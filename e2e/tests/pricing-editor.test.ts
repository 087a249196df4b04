import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import {
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  settle,
  shootAll,
  shot,
  toastAfter,
} from '../support/index.ts';

/**
 * Settings -> model pricing shows the price the relay charges for every model: built-in prices with nothing
 * saved, an edit saved as an override of the built-in price only, and "unpriced" for what the relay refuses.
 */

const card = (p: Page) => p.locator('.ant-card').filter({ hasText: '模型定价设置' });
const tableRow = (scope: Locator, name: string) =>
  scope
    .locator('.ant-table-tbody tr.ant-table-row')
    .filter({ has: scope.page().getByText(name, { exact: true }) });

const admin = await openConsole();
const { gw, page } = admin;
await seedChannel(gw.ctx, {
  baseUrl: 'http://127.0.0.1:9',
  key: 'sk-x',
  models: ['gpt-4.1', 'dall-e-3', 'gpt-4o-mini', 'house-model'],
});
await loginViaApi(page, gw.url, ROOT, '/setting?tab=operation');
await settle(page);

describe('model pricing editor', () => {
  test('with nothing saved, the JSON tab says the built-in prices apply', async () => {
    expect(gw.ctx.options.get('ModelRatio') ?? '{}').toBe('{}');
    const note = page.getByTestId('pricing-builtin-note');
    await poll(() => note.innerText()).toMatch(/共 0 个模型.*未列出的模型按网关内置价格计费（\d+ 个模型）/s);
    // The card under the fixed header, not behind it.
    await note.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, -120));
    await shot(page, 'pricing-editor-json-light-zh-desktop');
  });

  test('the visual editor lists built-in prices, marked as built in', async () => {
    await card(page).getByRole('tab', { name: '可视化倍率设置' }).click();
    const search = card(page).getByPlaceholder('搜索模型名称');
    await search.fill('gpt-4.1');
    const row = tableRow(card(page), 'gpt-4.1');
    await poll(() => row.innerText()).toContain('内置');
    const text = await row.innerText();
    expect(text).toContain('按量计费');
    // Ratio 1, completion 4: US$2 in, US$8 out per 1M tokens.
    expect(text).toContain('$2 / $8');
    await search.fill('dall-e-3');
    const dalle = tableRow(card(page), 'dall-e-3');
    await poll(() => dalle.innerText()).toContain('按次计费');
    expect(await dalle.innerText()).toContain('0.04');
  });

  test('editing a built-in price saves only what changed, and restoring it saves nothing', async () => {
    const search = card(page).getByPlaceholder('搜索模型名称');
    await search.fill('gpt-4.1');
    const row = tableRow(card(page), 'gpt-4.1');
    await row.getByRole('button', { name: /编\s*辑/ }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '编辑模型' });
    await poll(() => modal.locator('#ratio').inputValue()).toBe('1');
    expect(await modal.locator('#completionRatio').inputValue()).toBe('4');
    await modal.locator('#ratio').fill('1.5');
    await modal.locator('.ant-modal-footer .ant-btn-primary').click();
    await poll(() => row.innerText()).toContain('覆盖内置');
    await toastAfter(page, '保存成功', () => card(page).getByRole('button', { name: '应用更改' }).click());
    await poll(() => gw.ctx.options.get('ModelRatio')).toBe('{"gpt-4.1":1.5}');
    expect(gw.ctx.options.get('CompletionRatio') ?? '{}').toBe('{}');
    const listed = await fetch(`${gw.url}/api/pricing`).then((r) => r.json() as Promise<any>);
    expect(listed.data.find((r: any) => r.model_name === 'gpt-4.1').model_ratio).toBe(1.5);

    await row.getByRole('button', { name: '恢复内置' }).click();
    await page
      .locator('.ant-popconfirm')
      .getByRole('button', { name: /确\s*定|OK/ })
      .click();
    await poll(() => row.innerText()).toContain('内置');
    await card(page).getByRole('button', { name: '应用更改' }).click();
    await poll(() => gw.ctx.options.get('ModelRatio')).toBe('{}');
    await search.fill('');
  });

  test('"unpriced" lists only what the relay would refuse', async () => {
    await card(page).getByRole('tab', { name: '未设置倍率模型' }).click();
    const body = card(page).locator('.ant-table-tbody');
    await poll(() => body.innerText()).toContain('house-model');
    const text = await body.innerText();
    for (const priced of ['gpt-4.1', 'dall-e-3', 'gpt-4o-mini']) expect(text).not.toContain(priced);
  });

  test('in English the sources read in English; screenshots', async () => {
    const openVisual = async (p: Page) => {
      const pricing = p.locator('.ant-card').filter({ hasText: /模型定价设置|Model pricing/ });
      await pricing
        .locator('.ant-tabs-tab')
        .filter({ hasText: /可视化倍率设置|Visual editor/ })
        .click();
      await p
        .locator('.ant-table-row')
        .filter({ hasText: /内置|Built-in/ })
        .first()
        .waitFor();
    };
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'en'));
    await page.reload();
    await settle(page);
    await openVisual(page);
    const en = page.locator('.ant-card').filter({ hasText: 'Model pricing' });
    await poll(() => en.locator('.ant-table-tbody').innerText()).toContain('Built-in');
    await page.evaluate(() => localStorage.setItem('i18nextLng', 'zh'));
    await shootAll(page, 'pricing-editor', openVisual);
    expect(admin.errors).toEqual([]);
  });
});
