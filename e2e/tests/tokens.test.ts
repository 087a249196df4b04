import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import {
  loginViaApi,
  openConsole,
  openPage,
  ROOT,
  settle,
  shootAll,
  toast,
  toastAfter,
} from '../support/index.ts';

/**
 * A user creates, copies and disables tokens on /token; the form refuses what the server would refuse. This file
 * keeps the console's animations on (the other browser files ask for reduced motion).
 */
const opened = await openConsole({ motion: true });
const { gw, browser, page } = opened;
await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
await loginViaApi(page, gw.url, ROOT, '/token');

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');

describe('tokens page', () => {
  test('shows the warning and an empty table', async () => {
    await settle(page);
    await expect.poll(() => page.getByText('令牌无法精确控制使用额度').count()).toBeGreaterThan(0);
    expect(await rows().count()).toBe(0);
  });

  test('the form refuses a missing name, a bad IP list and a bad model limit', async () => {
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.getByTestId('token-submit').click();
    await expect
      .poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts())
      .toContain('请输入令牌名称');
    await expect.poll(() => toast(page, '请检查输入').count()).toBeGreaterThan(0);
    await page.locator('#token_name').fill('web');
    await page.locator('#token_allow_ips').fill('10.0.0.0/8\n999.1.1.1');
    await page.getByTestId('token-submit').click();
    await expect
      .poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts())
      .toContain('无法识别的 IP 或网段：999.1.1.1');
    await page.locator('#token_allow_ips').fill('10.0.0.0/8\n2001:db8::/32');
    await page.locator('#token_model_limits_enabled').check();
    await page.getByTestId('token-submit').click();
    await expect
      .poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts())
      .toContain('启用模型限制时请至少选择一个模型');
    await page.locator('#token_model_limits_enabled').uncheck();
    expect(await gw.ctx.db.db.selectFrom('tokens').selectAll().execute()).toEqual([]);
  });

  test('creates a token with a quota preset and a one-day expiry', async () => {
    await page.locator('.ant-drawer').getByRole('button', { name: '$10', exact: true }).click();
    await page.locator('.ant-drawer').getByRole('button', { name: '一天' }).click();
    await toastAfter(page, '令牌创建成功！', () => page.getByTestId('token-submit').click());
    await expect.poll(() => rows().count()).toBe(1);
    const text = await rows().first().innerText();
    expect(text).toContain('web');
    expect(text).toContain('$10.00');
    expect(text).toContain('已启用');
    const [row] = await gw.ctx.db.db.selectFrom('tokens').selectAll().execute();
    expect(Number(row.remain_quota)).toBe(5_000_000);
    expect(Number(row.expired_time) - Date.now() / 1000).toBeGreaterThan(23 * 3600);
    expect(row.allow_ips).toBe('10.0.0.0/8\n2001:db8::/32');
  });

  test('copies the key with its sk- prefix', async () => {
    await toastAfter(page, '已复制', () => rows().first().getByRole('button', { name: '复制' }).click());
    const [row] = await gw.ctx.db.db.selectFrom('tokens').select('key').execute();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`sk-${row.key}`);
  });

  test('copy selected needs a selection, then copies name and key lines', async () => {
    await toastAfter(page, '请至少选择一个令牌！', () =>
      page.getByRole('button', { name: '复制所选令牌' }).click(),
    );
    await rows().first().locator('.ant-checkbox-input').check();
    await page.getByRole('button', { name: '复制所选令牌' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toMatch(/^web {4}sk-[0-9a-zA-Z]{48}$/);
  });

  test('creates a batch of ten with suffixed names', async () => {
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('batch');
    await page.locator('.ant-drawer').getByRole('button', { name: '10', exact: true }).click();
    await toastAfter(page, '已创建 10 个令牌', () => page.getByTestId('token-submit').click());
    const names = (await gw.ctx.db.db.selectFrom('tokens').select('name').execute()).map((r) => r.name);
    expect(names.filter((n) => /^batch-[0-9a-zA-Z]{6}$/.test(n))).toHaveLength(9);
  });

  test('disables and re-enables a token', async () => {
    await page.locator('#token-search_keyword').fill('web');
    await page
      .getByRole('button', { name: '搜 索' })
      .or(page.getByRole('button', { name: '搜索' }))
      .first()
      .click();
    await expect.poll(() => rows().count()).toBe(1);
    await rows().first().getByRole('button', { name: '禁用' }).click();
    await expect.poll(() => rows().first().innerText()).toContain('已禁用');
    const [row] = await gw.ctx.db.db
      .selectFrom('tokens')
      .select('status')
      .where('name', '=', 'web')
      .execute();
    expect(Number(row.status)).toBe(2);
    await rows().first().getByRole('button', { name: '启用' }).click();
    await expect.poll(() => rows().first().innerText()).toContain('已启用');
    expect(opened.errors).toEqual([]);
  });

  test('the drawer slides in, and appears without motion when the system asks for less', async () => {
    /** Opens the token drawer and tells whether any element took an enter-motion class on the way. */
    const drawerMoved = async (p: Page) => {
      await p.goto(`${gw.url}/token`);
      await settle(p);
      await p.evaluate(() => {
        const seen = window as unknown as { motionSeen: string[] };
        seen.motionSeen = [];
        new MutationObserver((records) => {
          for (const r of records) {
            const cls = r.target instanceof Element ? (r.target.getAttribute('class') ?? '') : '';
            if (/-(enter|appear)(-|\b)/.test(cls)) seen.motionSeen.push(cls);
          }
        }).observe(document.body, {
          subtree: true,
          attributes: true,
          attributeFilter: ['class'],
          childList: true,
        });
      });
      await p.getByRole('button', { name: '添加令牌' }).click();
      await p.locator('#token_name').waitFor();
      await settle(p);
      return p.evaluate(() => (window as unknown as { motionSeen: string[] }).motionSeen);
    };
    expect((await drawerMoved(page)).length).toBeGreaterThan(0);
    const still = await openPage(browser);
    await loginViaApi(still.page, gw.url, ROOT, '/token');
    expect(await drawerMoved(still.page)).toEqual([]);
    await still.context.close();
  });

  test('screenshots of the token page and its form', async () => {
    await page.goto(`${gw.url}/token`);
    await settle(page);
    await shootAll(page, 'tokens');
  });
});
