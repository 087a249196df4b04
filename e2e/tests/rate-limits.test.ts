import { describe, expect, test } from 'vitest';
import { loginViaApi, openConsole, ROOT, settle, shootAll, toastAfter } from '../support/index.ts';

/**
 * Requests and tokens per minute in the console: a user sets them on a token (the list shows them as tags),
 * an admin sets them per group and model on /setting?tab=ratelimit, where a malformed map is refused.
 */

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');
const tokenRow = async () =>
  (
    await gw.ctx.db.db
      .selectFrom('tokens')
      .select(['rpm_limit', 'tpm_limit'])
      .where('name', '=', 'metered')
      .execute()
  )[0];

const opened = await openConsole();
const { gw, page } = opened;
await loginViaApi(page, gw.url, ROOT, '/token');

describe('per-minute limits in the console', () => {
  test('a token is created with RPM and TPM, and the list shows them', async () => {
    await settle(page);
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('metered');
    await expect.poll(() => page.getByText('0 表示不限制；先按估算计数').count()).toBeGreaterThan(0);
    await page.locator('#token_rpm_limit').fill('60');
    await page.locator('#token_tpm_limit').fill('150000');
    await toastAfter(page, '令牌创建成功！', () => page.getByTestId('token-submit').click());
    expect(await tokenRow()).toEqual({ rpm_limit: 60, tpm_limit: 150_000 });
    const row = rows().filter({ hasText: 'metered' });
    await expect.poll(() => row.getByTestId('token-rpm').innerText()).toBe('60 RPM');
    expect(await row.getByTestId('token-tpm').innerText()).toBe('150K TPM');
  });

  test('editing to 0 removes the limit and its tag', async () => {
    await rows().filter({ hasText: 'metered' }).getByRole('button', { name: '编辑' }).click();
    await expect.poll(() => page.locator('#token_rpm_limit').inputValue()).toBe('60');
    await page.locator('#token_rpm_limit').fill('0');
    await toastAfter(page, '令牌更新成功！', () => page.getByTestId('token-submit').click());
    await expect.poll(async () => (await tokenRow()).rpm_limit).toBe(0);
    expect((await tokenRow()).tpm_limit).toBe(150_000);
    const row = rows().filter({ hasText: 'metered' });
    await expect.poll(() => row.getByTestId('token-rpm').count()).toBe(0);
    expect(await row.getByTestId('token-tpm').innerText()).toBe('150K TPM');
  });

  test('screenshots of the token list with the limits', async () => {
    await gw.ctx.db.db.updateTable('tokens').set({ rpm_limit: 600 }).where('name', '=', 'metered').execute();
    await page.goto(`${gw.url}/token`);
    await settle(page);
    await shootAll(page, 'rate-limits-tokens');
  });

  test('screenshots of the token form with the limits', async () => {
    await shootAll(page, 'rate-limits-token-form', async (p) => {
      await p
        .locator('.ant-table-tbody tr.ant-table-row')
        .first()
        .getByRole('button', { name: /编辑|Edit/ })
        .click();
      await p.locator('#token_tpm_limit').scrollIntoViewIfNeeded();
    });
  });

  test('the group and model map is checked before saving, and a valid one is saved', async () => {
    await page.goto(`${gw.url}/setting?tab=ratelimit`);
    await settle(page);
    const field = page.locator('#GroupModelRateLimit');
    await field.fill('{"vip": {"gpt-4o": {"rpm": -5}}}');
    await field.blur();
    await expect.poll(() => page.getByText('格式应为 {"分组": {"模型或 *"').count()).toBeGreaterThan(0);
    await toastAfter(page, '请检查输入', () => page.getByTestId('save-rateLimits.section').click());
    expect(gw.ctx.options.get('GroupModelRateLimit')).toBe('{}');

    const value = { vip: { '*': { rpm: 600, tpm: 200_000 }, 'gpt-4o': { tpm: 30_000, scope: 'group' } } };
    await field.fill(JSON.stringify(value));
    await field.blur();
    await toastAfter(page, '保存成功', () => page.getByTestId('save-rateLimits.section').click());
    expect(JSON.parse(gw.ctx.options.get('GroupModelRateLimit'))).toEqual(value);
    await shootAll(page, 'rate-limits-settings');
    expect(opened.errors).toEqual([]);
  });
});
