import { Role } from '@modelgate/shared';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedUser } from '../../server/test/support/relay-seed.ts';
import {
  type Gateway,
  launchBrowser,
  loginViaApi,
  type OpenedPage,
  openPage,
  settle,
  setupViaApi,
  shootAll,
  startGateway,
} from '../support/index.ts';

/** An admin who is not root sees the options that guard sign-in, mail, links and payments read-only. */
let gw: Gateway;
let browser: Browser;
let admin: OpenedPage;
let page: Page;
const ADMIN = { username: 'ops', password: 'ops-pass-1234' };

beforeAll(async () => {
  gw = await startGateway();
  await setupViaApi(gw.url);
  await seedUser(gw.ctx, { quota: 0, role: Role.Admin, ...ADMIN });
  browser = await launchBrowser();
  admin = await openPage(browser);
  page = admin.page;
  await loginViaApi(page, gw.url, ADMIN, '/setting?tab=system');
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('root-only settings', () => {
  test('an admin sees root-only options disabled with a note, and operational ones editable', async () => {
    await settle(page);
    await expect.poll(() => page.getByTestId('root-only-note').count()).toBeGreaterThan(0);
    for (const id of ['#SMTPServer', '#ServerAddress', '#PayAddress'])
      expect(await page.locator(id).isDisabled(), id).toBe(true);
    expect(await page.getByRole('switch', { name: '允许通过密码进行登录' }).isDisabled()).toBe(true);
    await shootAll(page, 'settings-root-only-system');

    await page.goto(`${gw.url}/setting?tab=operation`);
    await settle(page);
    expect(await page.locator('#RetryTimes').isDisabled()).toBe(false);
    expect(admin.errors).toEqual([]);
  });
});
