import { describe, expect, test } from 'vitest';
import { loginViaApi, openConsole, ROOT, settle, shootAll, toast, toastAfter } from '../support/index.ts';

/** An admin sets how many days of usage logs and finished tasks to keep, in the logs section of /setting. */

const SAVE = 'save-settings.section.logs';

const admin = await openConsole();
const { gw, page } = admin;
await loginViaApi(page, gw.url, ROOT, '/setting');

describe('retention settings', () => {
  test('a number of days out of range is refused with a message and nothing is saved', async () => {
    await settle(page);
    const days = page.locator('#LogRetentionDays');
    await days.fill('5000');
    await days.blur();
    await page.getByTestId(SAVE).click();
    await expect
      .poll(() => page.getByText('必须是 0 到 3650 之间的整数（0 表示永久保留）').count())
      .toBeGreaterThan(0);
    await expect.poll(() => toast(page, '请检查输入').count()).toBeGreaterThan(0);
    expect(gw.ctx.options.int('LogRetentionDays')).toBe(0);
    await shootAll(page, 'settings-retention-refused', async (p) => {
      await p.locator('#LogRetentionDays').fill('5000');
      await p.locator('#LogRetentionDays').blur();
      await p.locator('#LogRetentionDays').scrollIntoViewIfNeeded();
    });
  });

  test('days in range are saved and the cleanup job reads them', async () => {
    await page.reload();
    await settle(page);
    await page.locator('#LogRetentionDays').fill('90');
    await page.locator('#TaskRetentionDays').fill('30');
    await toastAfter(page, '保存成功', () => page.getByTestId(SAVE).click());
    await expect.poll(() => gw.ctx.options.int('LogRetentionDays')).toBe(90);
    expect(gw.ctx.options.int('TaskRetentionDays')).toBe(30);

    // After a reload the saved values are shown with their help text.
    await page.reload();
    await settle(page);
    expect(await page.locator('#LogRetentionDays').inputValue()).toBe('90');
    expect(await page.locator('#TaskRetentionDays').inputValue()).toBe('30');
    expect(await page.getByText('数据看板的统计不受影响', { exact: false }).count()).toBeGreaterThan(0);
    await shootAll(page, 'settings-retention', async (p) => {
      await p.locator('#LogRetentionDays').scrollIntoViewIfNeeded();
    });
    expect(admin.errors).toEqual([]);
  });
});
