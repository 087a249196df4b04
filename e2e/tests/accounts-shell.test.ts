import { describe, expect, test } from 'vitest';
import {
  createUserViaApi,
  loginViaApi,
  openConsole,
  openPage,
  PHONE,
  poll,
  ROOT,
  shootAll,
  toast,
  toastAfter,
} from '../support/index.ts';

/**
 * The console shell (top bar, side navigation and its flags, footer, theme, language, phone menu) and the
 * account actions that change data: user management row actions, referral transfer, system access token,
 * account deletion. Each check looks at the page and at the server.
 */
// Each test opens its own page; the console's own page is not used.
const { gw, browser } = await openConsole();

const setOption = (key: string, value: string) => gw.ctx.options.set(key, value);
const userRow = (id: number) =>
  gw.ctx.db.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function userId(username: string): Promise<number> {
  const row = await gw.ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('shell', () => {
  test('top bar for a visitor: name, badges, docs, sanitised footer, theme and language', async () => {
    await setOption('SystemName', 'Gate Test');
    await setOption('SelfUseModeEnabled', 'true');
    await setOption('general_setting.docs_link', 'https://docs.example.com');
    await setOption('Footer', '<b>Footer by admin</b><img src="x" onerror="window.__xss = 1">');
    const { page, context } = await openPage(browser);
    await page.goto(`${gw.url}/about`);
    await poll(() => page.locator('header').getByText('Gate Test').count()).toBe(1);
    expect(await page.title()).toBe('Gate Test');
    expect(await page.locator('header').getByText('自用模式').count()).toBe(1);
    expect(await page.locator('header').getByText('文档').count()).toBe(1);
    // self-use mode: no sign-up offered
    expect(await page.locator('header').getByRole('button', { name: '注册' }).count()).toBe(0);
    await poll(() => page.locator('footer b').innerText()).toBe('Footer by admin');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('footer img[onerror]').count()).toBe(0);

    await page.getByRole('button', { name: '切换到深色模式' }).click();
    expect(
      await page.evaluate(() => [
        document.body.getAttribute('theme-mode'),
        localStorage.getItem('theme-mode'),
      ]),
    ).toEqual(['dark', 'dark']);
    await page.getByRole('button', { name: '语言' }).click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await poll(() => page.locator('header').getByText('Pricing').count()).toBe(1);
    expect(
      await page.evaluate(() => [localStorage.getItem('i18nextLng'), document.documentElement.lang]),
    ).toEqual(['en', 'en']);
    await page.reload();
    await poll(() => page.locator('header').getByText('Pricing').count()).toBe(1);
    expect(await page.evaluate(() => document.body.getAttribute('theme-mode'))).toBe('dark');

    await setOption('SelfUseModeEnabled', 'false');
    await setOption('general_setting.docs_link', '');
    await setOption('Footer', '');
    await context.close();
  });

  test('side navigation follows the feature flags and remembers its collapse state', async () => {
    const { page, context } = await openPage(browser);
    await setOption('DrawingEnabled', 'false');
    await setOption('TaskEnabled', 'false');
    await setOption('DataExportEnabled', 'false');
    await loginViaApi(page, gw.url, ROOT, '/personal');
    const sider = page.locator('.ant-layout-sider');
    await poll(() => sider.getByText('个人设置').count()).toBe(1);
    for (const hidden of ['绘图日志', '任务日志', '数据看板'])
      expect(await sider.getByText(hidden).count()).toBe(0);
    expect(await sider.getByText('用户管理').count()).toBe(1);

    await setOption('DrawingEnabled', 'true');
    await setOption('TaskEnabled', 'true');
    await setOption('DataExportEnabled', 'true');
    await page.reload();
    for (const shown of ['绘图日志', '任务日志', '数据看板'])
      await poll(() => sider.getByText(shown).count()).toBe(1);

    await page.locator('.ant-layout-sider-trigger').click();
    await poll(() => page.evaluate(() => localStorage.getItem('default_collapse_sidebar'))).toBe('true');
    await page.reload();
    await poll(() => sider.evaluate((el) => el.getBoundingClientRect().width)).toBe(60);
    await page.locator('.ant-layout-sider-trigger').click();
    await poll(() => sider.evaluate((el) => el.getBoundingClientRect().width)).toBe(200);

    // home has no side bar
    await page.goto(`${gw.url}/`);
    await poll(() => page.locator('header').count()).toBe(1);
    expect(await page.locator('.ant-layout-sider').count()).toBe(0);
    await context.close();
  });

  test('on a phone the side bar gives way to a menu drawer', async () => {
    const { page, context } = await openPage(browser, { viewport: PHONE });
    await loginViaApi(page, gw.url, ROOT, '/token');
    await poll(() => page.getByRole('button', { name: '菜单' }).count()).toBe(1);
    expect(await page.locator('.ant-layout-sider').count()).toBe(0);
    await page.getByRole('button', { name: '菜单' }).click();
    const drawer = page.locator('.ant-drawer');
    await drawer.getByText('个人设置').click();
    await page.waitForURL((u) => u.pathname === '/personal');
    await poll(() => page.locator('.ant-drawer-open').count()).toBe(0);
    // nothing wider than the screen
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});

describe('account actions', () => {
  test('user management: disable, enable, promote, demote and cancel, as the server records them', async () => {
    const { page, context } = await openPage(browser);
    const root = await loginViaApi(page, gw.url, ROOT, '/personal');
    await createUserViaApi(page, gw.url, Number(root.id), { username: 'bob', password: 'bob-pass-123' });
    const bob = await userId('bob');
    await page.goto(`${gw.url}/user`);
    const row = page.locator('tbody tr').filter({ has: page.locator('td', { hasText: /^bob$/ }) });
    await poll(() => row.count()).toBe(1);

    const act = async (button: string) => {
      await row.getByRole('button', { name: button, exact: true }).click();
      await toastAfter(page, '操作成功完成！', () =>
        page.locator('.ant-popover').last().getByRole('button', { name: '确定' }).click(),
      );
      await page
        .locator('.ant-message-notice')
        .first()
        .waitFor({ state: 'detached', timeout: 10_000 })
        .catch(() => {});
    };

    await act('禁用');
    await poll(() => row.getByText('已封禁').count()).toBe(1);
    expect((await userRow(bob)).status).toBe(2);
    await act('启用');
    await poll(() => row.getByText('已激活').count()).toBe(1);
    expect((await userRow(bob)).status).toBe(1);
    await act('提升');
    await poll(() => row.getByText('管理员', { exact: true }).count()).toBe(1);
    expect((await userRow(bob)).role).toBe(10);
    await act('降级');
    await poll(() => row.getByText('普通用户').count()).toBe(1);
    expect((await userRow(bob)).role).toBe(1);
    await act('注销');
    await poll(() => row.getByText('已注销').count()).toBe(1);
    expect(await row.getByRole('button').count()).toBe(0);
    expect((await userRow(bob)).deleted_at).not.toBeNull();
    await page.reload();
    await poll(() => row.getByText('已注销').count()).toBe(1);
    expect(await row.getByRole('button').count()).toBe(0);
    await context.close();
  });

  test('personal: referral transfer, system access token and account deletion', async () => {
    const admin = await openPage(browser);
    const root = await loginViaApi(admin.page, gw.url, ROOT, '/personal');
    await createUserViaApi(admin.page, gw.url, Number(root.id), {
      username: 'carol',
      password: 'carol-pass-1',
    });
    await admin.context.close();
    const carol = await userId('carol');
    // pending referral rewards, as if two invitees had signed up
    await gw.ctx.db.db
      .updateTable('users')
      .set({ aff_quota: 1_000_000, aff_history_quota: 1_000_000 })
      .where('id', '=', carol)
      .execute();
    gw.ctx.users.invalidate(carol);
    // thirteen models open to the default group (as an enabled channel would give)
    const models = Array.from({ length: 13 }, (_, i) => `model-${String(i + 1).padStart(2, '0')}`);
    await gw.ctx.db.db
      .insertInto('abilities')
      .values(
        models.map((model) => ({
          group: 'default',
          model,
          channel_id: 1,
          enabled: 1,
          priority: 0,
          weight: 0,
          tag: '',
        })),
      )
      .execute();
    const { page, context } = await openPage(browser);
    await loginViaApi(page, gw.url, { username: 'carol', password: 'carol-pass-1' }, '/personal');
    const before = await userRow(carol);

    await poll(() => page.getByText('@carol').count()).toBe(1);
    // models: the first 10, then "more 3 models"; the expanded state survives a reload
    const tags = page.getByTestId('model-tags').locator('.ant-tag');
    await poll(() => tags.count()).toBe(10);
    await page.getByRole('button', { name: '更多 3 个模型' }).click();
    await poll(() => tags.count()).toBe(13);
    expect(await page.evaluate(() => localStorage.getItem('modelsExpanded'))).toBe('true');
    await page.reload();
    await poll(() => tags.count()).toBe(13);
    await page.getByRole('button', { name: '收起' }).click();
    await poll(() => tags.count()).toBe(10);
    await page.getByRole('button', { name: '划转到余额' }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '划转额度' });
    await modal.locator('input').fill('100');
    await toastAfter(page, '最低划转额度：$1.00', () => modal.getByRole('button', { name: '确定' }).click());
    await modal.locator('input').fill('500000');
    await modal.getByRole('button', { name: '确定' }).click();
    await poll(() => toast(page, '划转成功').count()).toBe(1);
    const after = await userRow(carol);
    expect(Number(after.quota)).toBe(Number(before.quota) + 500_000);
    expect(Number(after.aff_quota)).toBe(500_000);

    await page.getByRole('button', { name: '生成令牌' }).click();
    await poll(() => page.getByTestId('access-token').inputValue()).not.toBe('');
    const accessToken = await page.getByTestId('access-token').inputValue();
    const self = await fetch(`${gw.url}/api/user/self`, {
      headers: { Authorization: `Bearer ${accessToken}`, 'New-Api-User': String(carol) },
    });
    expect(((await self.json()) as { data: { username: string } }).data.username).toBe('carol');
    await shootAll(page, 'personal-actions');

    // notification settings: webhooks must be https
    await page.getByLabel('Webhook 通知').check();
    await page.locator('#setting_webhook_url').fill('http://hooks.example.com/x');
    await page.locator('form#setting').getByRole('button', { name: '保存' }).first().click();
    await poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts()).toEqual([
      'Webhook 地址必须以 https:// 开头',
    ]);
    // A public address: the gateway refuses internal or unresolvable webhook hosts when they are saved.
    await page.locator('#setting_webhook_url').fill('https://203.0.113.10/x');
    await page.locator('#setting_quota_warning_threshold').fill('1000000');
    await page.locator('form#setting').getByRole('button', { name: '保存' }).first().click();
    await poll(() => toast(page, '设置已更新').count()).toBe(1);
    const setting = JSON.parse((await userRow(carol)).setting ?? '{}') as Record<string, unknown>;
    expect(setting).toMatchObject({
      notify_type: 'webhook',
      webhook_url: 'https://203.0.113.10/x',
      quota_warning_threshold: 1000000,
    });

    await page.getByRole('button', { name: '删除账户' }).click();
    const del = page.locator('.ant-modal').filter({ hasText: '以确认删除' });
    await page.getByTestId('delete-confirm-input').fill('caro');
    expect(await del.getByRole('button', { name: '确认删除' }).isDisabled()).toBe(true);
    await page.getByTestId('delete-confirm-input').fill('carol');
    await del.getByRole('button', { name: '确认删除' }).click();
    await poll(() => new URL(page.url()).pathname, 20_000).toBe('/login');
    expect((await userRow(carol)).deleted_at).not.toBeNull();
    const relogin = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', password: 'carol-pass-1' }),
    });
    expect(((await relogin.json()) as { success: boolean }).success).toBe(false);
    await context.close();
  });

  test('reset pages render and check their input', async () => {
    const { page, context } = await openPage(browser);
    await page.goto(`${gw.url}/reset`);
    await page.locator('form#reset button[type=submit]').click();
    await poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts()).toEqual([
      '请输入邮箱地址',
    ]);
    await shootAll(page, 'reset');
    await page.goto(`${gw.url}/user/reset`);
    await poll(() => page.getByText('重置链接无效，请重新申请').count()).toBe(1);
    await context.close();
  });
});
