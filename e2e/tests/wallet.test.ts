import { afterAll, describe, expect, test } from 'vitest';
import { type FakeEpay, startFakeEpay } from '../../server/test/support/fake-epay.ts';
import {
  createUserViaApi,
  loginViaApi,
  openConsole,
  openPage,
  poll,
  ROOT,
  settle,
  setupViaApi,
  shootAll,
  toastAfter,
} from '../support/index.ts';

/** Online top-up through a fake Epay gateway: quote, confirm, hidden form POST, cashier page, credit once. */
const ALICE = { username: 'alice', password: 'alice-pass-1' };
const PID = '2001';
const KEY = 'e2e-merchant-key';

let epay: FakeEpay;

const balance = () => page.getByTestId('wallet-balance').innerText();
const alipay = () => page.getByTestId('pay-zfb');

const user = await openConsole({ setup: false });
const { gw, browser, page } = user;
epay = await startFakeEpay({ pid: PID, key: KEY, duplicates: 2 });
await setupViaApi(gw.url);
const admin = await openPage(browser);
const root = await loginViaApi(admin.page, gw.url, ROOT, '/personal');
await createUserViaApi(admin.page, gw.url, Number(root.id), ALICE);
await admin.context.close();
await loginViaApi(page, gw.url, ALICE, '/topup');

afterAll(async () => {
  await epay?.close();
});

describe('wallet', () => {
  test('disables the pay buttons and the code link, with the reason, while they are not set up', async () => {
    await settle(page);
    await poll(() => page.getByText('管理员未开启在线充值！').count()).toBeGreaterThan(0);
    expect(await alipay().isDisabled()).toBe(true);
    expect(await page.getByTestId('pay-wx').isDisabled()).toBe(true);
    await poll(() => page.getByTestId('pay-disabled-reason').innerText()).toContain('在线充值未开启');
    expect(await page.getByRole('button', { name: '获取兑换码' }).isDisabled()).toBe(true);
    await poll(() => page.getByTestId('get-code-reason').innerText()).toContain(
      '管理员未设置购买兑换码的链接',
    );
    await shootAll(page, 'wallet-off');
  });

  test('the code link opens the link the administrator set', async () => {
    await gw.ctx.options.set('TopUpLink', 'https://shop.example.com/codes');
    await page.reload();
    await settle(page);
    const link = page.getByRole('link', { name: '获取兑换码' });
    await poll(() => link.getAttribute('href')).toBe('https://shop.example.com/codes');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await page.getByTestId('get-code-reason').count()).toBe(0);
  });

  test('quotes the amount and enforces the minimum', async () => {
    const o = gw.ctx.options;
    for (const [k, v] of Object.entries({
      ServerAddress: gw.url,
      PayAddress: epay.url,
      EpayId: PID,
      EpayKey: KEY,
      Price: '7.3',
      MinTopUp: '2',
    }))
      await o.set(k, v);
    await page.reload();
    await settle(page);
    const amount = page.getByLabel('充值数量');
    await poll(() => amount.inputValue()).toBe('2');
    await poll(() => page.getByTestId('topup-payable').innerText()).toContain('14.60');
    expect(await alipay().isDisabled()).toBe(false);
    expect(await page.getByTestId('pay-disabled-reason').count()).toBe(0);
    await amount.fill('1');
    await amount.blur();
    await toastAfter(page, '充值数量不能小于 2', () => alipay().click());
    await page.getByRole('button', { name: '$20', exact: true }).click();
    await poll(() => page.getByTestId('topup-payable').innerText()).toContain('146.00');
    await shootAll(page, 'wallet');
  });

  test('pays through the gateway in a new tab and is credited exactly once', async () => {
    await page.getByRole('button', { name: '$20', exact: true }).click();
    await poll(() => page.getByTestId('topup-payable').innerText()).toContain('146.00');
    await alipay().click();
    const dialog = page.locator('.ant-modal-confirm');
    await poll(() => dialog.innerText()).toContain('实付金额：146.00 元');
    const popup = page.context().waitForEvent('page');
    await dialog.getByRole('button', { name: /确/ }).click();
    const cashier = await popup;
    await cashier.waitForLoadState();
    expect(await cashier.locator('#money').innerText()).toBe('146.00');
    expect(await cashier.locator('#type').innerText()).toBe('alipay');
    // The pay buttons lock for the 30 s countdown while the payment is under way.
    await poll(() => alipay().innerText()).toMatch(/支付中 \(\d+s\)/);
    expect(await alipay().isDisabled()).toBe(true);

    await cashier.locator('#pay').click();
    await cashier.waitForURL((u) => u.pathname === '/topup' && u.searchParams.get('pay') === 'return');
    await poll(
      () => cashier.getByText('网关确认付款后余额会更新', { exact: false }).count(),
      15_000,
    ).toBeGreaterThan(0);
    await cashier.close();

    await page.reload();
    await settle(page);
    // $20 credited once although the gateway notified twice.
    await poll(balance).toContain('$20.00');
    const orders = page.locator('.ant-table-tbody');
    await poll(() => orders.innerText()).toContain('已到账');
    await poll(() => orders.innerText()).toContain('¥146.00');
    const logs = await gw.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('type', '=', 1)
      .where('username', '=', ALICE.username)
      .execute();
    expect(logs).toHaveLength(1);
    expect(Number(logs[0].quota)).toBe(20 * 500_000);
    expect(user.errors).toEqual([]);
  });
});
