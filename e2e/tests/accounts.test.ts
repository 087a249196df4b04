import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import {
  loginViaUi,
  openConsole,
  poll,
  ROOT,
  settle,
  setupViaUi,
  shootAll,
  toast,
  toastAfter,
} from '../support/index.ts';

/**
 * The account journey through the real console: first-run setup, root login, creating a user, that user's
 * own pages and password change, the admin pages refused to them, and the validation messages on the way.
 */
const ALICE = { username: 'alice', password: 'alice-pass-1', newPassword: 'alice-pass-2' };

const formErrors = (p: Page) => p.locator('.ant-form-item-explain-error').allInnerTexts();

async function logout(p: Page) {
  await p.getByTestId('user-menu').click();
  await p.getByRole('menuitem', { name: '退出' }).click();
  await p.waitForURL((u) => u.pathname === '/login');
}

const opened = await openConsole({ setup: false });
const { gw, page } = opened;

describe('accounts', () => {
  test('a fresh install sends every page to /setup, which validates its fields', async () => {
    await page.goto(`${gw.url}/personal`);
    await page.waitForURL((u) => u.pathname === '/setup');
    await poll(() => page.getByText('系统初始化').count()).toBeGreaterThan(0);
    // SQLite install: the warning is shown
    await poll(() => page.getByText('您正在使用 SQLite 数据库', { exact: false }).count()).toBe(1);
    await shootAll(page, 'setup');

    await page.locator('form#setup button[type=submit]').click();
    await poll(() => formErrors(page)).toEqual(
      expect.arrayContaining(['请输入管理员用户名', '密码长度至少为8个字符']),
    );
    await page.locator('#setup_username').fill('root');
    await page.locator('#setup_password').fill('short');
    await page.locator('#setup_confirmPassword').fill('different');
    await page.locator('form#setup button[type=submit]').click();
    await poll(() => formErrors(page)).toEqual(['密码长度至少为8个字符', '两次输入的密码不一致']);

    // the usage-mode explanation
    await page.getByRole('button', { name: '使用模式说明' }).click();
    await poll(() => page.locator('.ant-modal').getByText('适用于个人使用', { exact: false }).count()).toBe(
      1,
    );
    await page.keyboard.press('Escape');

    await setupViaUi(page, gw.url, ROOT);
    const setup = (await (await fetch(`${gw.url}/api/setup`)).json()) as { data: { status: boolean } };
    expect(setup.data.status).toBe(true);
  });

  test('login validates, refuses a wrong password, and shows the expired message', async () => {
    await page.goto(`${gw.url}/login?expired=true`);
    await poll(() => page.getByText('未登录或登录已过期，请重新登录！').count()).toBe(1);
    await shootAll(page, 'login');

    await page.locator('form#login button[type=submit]').click();
    await poll(() => formErrors(page)).toEqual(['请输入用户名和密码！', '请输入用户名和密码！']);

    await page.locator('#login_username').fill(ROOT.username);
    await page.locator('#login_password').fill('wrong-password');
    await toastAfter(page, '错误：', () => page.locator('form#login button[type=submit]').click());
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  test('root logs in, sees the admin section and creates a user with quota', async () => {
    await loginViaUi(page, gw.url, ROOT);
    await page.goto(`${gw.url}/user`);
    const nav = page.locator('.ant-layout-sider');
    await poll(() => nav.getByText('用户管理').count()).toBe(1);
    await poll(() => page.locator('tbody tr').filter({ hasText: 'root' }).count()).toBe(1);

    // add-user validation, then the real thing
    await page.getByRole('button', { name: '添加用户' }).click();
    const drawer = page.locator('.ant-drawer').filter({ hasText: '添加用户' });
    await drawer.getByRole('button', { name: '提交' }).click();
    await poll(() => formErrors(page)).toEqual(['用户名和密码不能为空！', '用户名和密码不能为空！']);
    await page.locator('#addUser_username').fill(ALICE.username);
    await page.locator('#addUser_display_name').fill('Alice');
    await page.locator('#addUser_password').fill(ALICE.password);
    await drawer.getByRole('button', { name: '提交' }).click();
    await poll(() => toast(page, '用户账户创建成功！').count()).toBe(1);
    const row = page.locator('tbody tr').filter({ hasText: ALICE.username });
    await poll(() => row.count()).toBe(1);
    const aliceId = Number(await row.locator('td').first().innerText());

    const before = await gw.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', aliceId)
      .executeTakeFirstOrThrow();

    // edit: add quota (the helper accepts the amount to add), then save
    await row.getByRole('button', { name: '编辑' }).click();
    await page.waitForURL((u) => u.pathname === `/user/edit/${aliceId}`);
    await page.locator('#editUser_quota').waitFor();
    await shootAll(page, 'user-edit');
    await page.getByRole('button', { name: '添加额度' }).click();
    const addQuota = page.locator('.ant-modal').filter({ hasText: '输入要增加的额度' });
    await addQuota.locator('input').fill('500000');
    await poll(() => addQuota.getByText('新额度：', { exact: false }).innerText()).toContain(
      String(Number(before.quota) + 500000),
    );
    await addQuota.getByRole('button', { name: /确\s*定|OK/ }).click();
    await poll(() => page.locator('#editUser_quota').inputValue()).toBe(
      String(Number(before.quota) + 500000),
    );
    await page
      .locator('.ant-drawer')
      .filter({ hasText: '编辑用户' })
      .getByRole('button', { name: '保存' })
      .click();
    await poll(() => toast(page, '用户信息更新成功！').count()).toBe(1);
    const after = await gw.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', aliceId)
      .executeTakeFirstOrThrow();
    expect(Number(after.quota)).toBe(Number(before.quota) + 500000);

    await page.waitForURL((u) => u.pathname === '/user');
    await shootAll(page, 'users');
    await logout(page);
  });

  test('register validates its fields and remembers the referral code', async () => {
    await page.goto(`${gw.url}/register?aff=ABCD`);
    await page.locator('#register_username').fill('bob');
    expect(await page.evaluate(() => localStorage.getItem('aff'))).toBe('ABCD');
    await page.locator('#register_password').fill('short');
    await page.locator('#register_password2').fill('other');
    await page.locator('form#register button[type=submit]').click();
    await poll(() => formErrors(page)).toEqual(['密码长度不得小于 8 位！', '两次输入的密码不一致']);
    await shootAll(page, 'register');
  });

  test('the new user logs in, is refused the admin pages, and changes their password', async () => {
    await loginViaUi(page, gw.url, ALICE);
    const user = await page.evaluate(
      () => JSON.parse(localStorage.getItem('user') ?? '{}') as { id: number; username: string },
    );
    expect(user.username).toBe(ALICE.username);

    // the console refuses the admin pages and hides their navigation
    await page.goto(`${gw.url}/user`);
    await poll(() => page.getByText('此页面仅管理员可以访问。').count()).toBe(1);
    expect(await page.locator('.ant-layout-sider').getByText('用户管理').count()).toBe(0);
    // and the server refuses the admin API even with this user's valid session
    const res = await page
      .context()
      .request.get(`${gw.url}/api/user/?p=1&page_size=10`, { headers: { 'New-Api-User': String(user.id) } });
    expect(res.status()).toBe(403);
    expect(((await res.json()) as { success: boolean }).success).toBe(false);

    await page.goto(`${gw.url}/personal`);
    await poll(() => page.getByText('@alice').count()).toBe(1);
    await poll(() => page.getByTestId('invite-link').inputValue()).toMatch(/\/register\?aff=\w+/);
    await shootAll(page, 'personal');

    await page.getByRole('button', { name: '修改密码' }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '修改密码' });
    await page.locator('#password_original_password').fill(ALICE.password);
    await page.locator('#password_password').fill(ALICE.password);
    await page.locator('#password_password2').fill('mismatch-1');
    await modal.getByRole('button', { name: /确\s*定|OK/ }).click();
    await poll(() => formErrors(page)).toEqual(['新密码不能与原密码相同', '两次输入的密码不一致']);
    await page.locator('#password_password').fill(ALICE.newPassword);
    await page.locator('#password_password2').fill(ALICE.newPassword);
    await modal.getByRole('button', { name: /确\s*定|OK/ }).click();
    await poll(() => toast(page, '密码修改成功！').count()).toBe(1);

    await logout(page);
    await page.locator('#login_username').fill(ALICE.username);
    await page.locator('#login_password').fill(ALICE.password);
    await toastAfter(page, '错误：', () => page.locator('form#login button[type=submit]').click());
    await loginViaUi(page, gw.url, { username: ALICE.username, password: ALICE.newPassword });
  });

  test('an expired session lands on /login?expired=true with the message', async () => {
    // The page the last test left (the token list) settles first: a request of its still in flight when the cookie
    // goes would be the one to get the 401, and its redirect would race the navigation below.
    await page.waitForLoadState('networkidle');
    await page.context().clearCookies();
    await page.goto(`${gw.url}/personal`);
    await page.waitForURL((u) => u.pathname === '/login' && u.searchParams.get('expired') === 'true');
    await poll(() => page.getByText('未登录或登录已过期，请重新登录！').count()).toBe(1);
    expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  });

  test('unknown addresses show the not-found page; no page errors on the way', async () => {
    await page.goto(`${gw.url}/no/such/page`);
    await poll(() => page.getByText('页面不存在').count()).toBe(1);
    await settle(page);
    await shootAll(page, 'not-found');
    expect(opened.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
