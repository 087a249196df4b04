import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  ARTIFACTS,
  createUserViaApi,
  loginViaApi,
  openConsole,
  openPage,
  poll,
  ROOT,
  settle,
  shootAll,
  shot,
  toastAfter,
} from '../support/index.ts';

/** An admin creates codes on /redemption, downloads them, and a user redeems one on /topup. */
const ALICE = { username: 'alice', password: 'alice-pass-1' };

let keys: string[] = [];

const admin = await openConsole();
const { gw, browser, page } = admin;
const root = await loginViaApi(page, gw.url, ROOT, '/redemption');
await createUserViaApi(page, gw.url, Number(root.id), ALICE);

describe('redemption codes', () => {
  test('an admin creates a batch with a quota preset and downloads the codes', async () => {
    await settle(page);
    await page.getByRole('button', { name: '添加兑换码' }).click();
    await page.locator('#name').fill('e2e-batch');
    await page.getByRole('button', { name: '$10', exact: true }).click();
    await page.locator('#count').fill('2');
    await toastAfter(page, '兑换码创建成功！', () => page.getByTestId('redemption-submit').click());

    const download = page.waitForEvent('download');
    await page.locator('.ant-modal-confirm').getByRole('button', { name: '下载' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('e2e-batch.txt');
    // The browser is shared over a connection (one chromium per run): the download is copied here to be read.
    const saved = join(ARTIFACTS, 'redemption-download.txt');
    await file.saveAs(saved);
    keys = readFileSync(saved, 'utf8').trim().split('\n');
    expect(keys).toHaveLength(2);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{32}$/);

    const rows = page.locator('.ant-table-tbody tr.ant-table-row');
    await poll(() => rows.count()).toBe(2);
    await poll(() => page.locator('.ant-table-tbody').innerText()).toContain('e2e-batch');
    await poll(() => page.locator('.ant-table-tbody').innerText()).toContain('$10.00');
    expect(admin.errors).toEqual([]);
  });

  test('the form refuses a name over 20 characters and "copy selected" needs a selection', async () => {
    await toastAfter(page, '请至少选择一个兑换码！', () =>
      page.getByRole('button', { name: '复制所选兑换码' }).click(),
    );
    await page.getByRole('button', { name: '添加兑换码' }).click();
    await page.locator('#name').fill('x'.repeat(21));
    await page.getByTestId('redemption-submit').click();
    await poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts()).toContain(
      '名称长度必须在 1-20 个字符之间',
    );
    await shot(page, 'redemptions-drawer-light-zh-desktop');
    await page.locator('.ant-drawer').getByRole('button', { name: '取消' }).click();
  });

  test('one code created: a success dialog that says "1 code was created"', async () => {
    const en = await openPage(browser, { locale: 'en-US' });
    await loginViaApi(en.page, gw.url, ROOT, '/redemption');
    const p = en.page;
    await settle(p);
    await p.getByRole('button', { name: 'Add codes' }).click();
    await p.locator('#name').fill('single');
    await p.getByRole('button', { name: '$10', exact: true }).click();
    await p.getByTestId('redemption-submit').click();
    const dialog = p.locator('.ant-modal-confirm');
    await poll(() => dialog.innerText()).toContain('1 code was created. Download it as a text file?');
    expect(await dialog.innerText()).toContain('Code created');
    expect(await dialog.getAttribute('class')).toContain('ant-modal-confirm-success');
    expect(await dialog.locator('.anticon-check-circle').count()).toBe(1);
    expect(await dialog.locator('.anticon-exclamation-circle').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await en.context.close();
  });

  test('screenshots of the code list', async () => {
    await shootAll(page, 'redemptions');
  });

  test('a user redeems a code on the wallet page and sees the balance change, once', async () => {
    const user = await openPage(browser);
    await loginViaApi(user.page, gw.url, ALICE, '/topup');
    const p = user.page;
    await settle(p);
    const balance = () => p.getByTestId('wallet-balance').innerText();
    await poll(balance).toContain('$0.00');

    await toastAfter(p, '请输入兑换码！', () => p.getByTestId('redeem-submit').click());

    await p.getByPlaceholder('请输入兑换码').fill(keys[0]);
    await p.getByTestId('redeem-submit').click();
    await poll(() => p.locator('.ant-modal-confirm').innerText()).toContain('成功兑换额度：$10.00');
    await p.locator('.ant-modal-confirm').getByRole('button').last().click();
    await poll(balance).toContain('$10.00');

    await p.getByPlaceholder('请输入兑换码').fill(keys[0]);
    await toastAfter(p, '兑换失败，该兑换码已被使用', () => p.getByTestId('redeem-submit').click());
    await p.reload();
    await settle(p);
    await poll(balance).toContain('$10.00');

    // The admin list now shows the code as used by alice.
    await page.reload();
    await settle(page);
    await poll(() => page.locator('.ant-table-tbody').innerText()).toContain('已使用');
    await user.context.close();
  });
});
