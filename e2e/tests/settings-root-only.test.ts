import { Role } from '@modelgate/shared';
import { describe, expect, test } from 'vitest';
import { seedUser } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, settle, shootAll } from '../support/index.ts';

/** An admin who is not root sees the options that guard sign-in, mail, links and payments read-only. */
const ADMIN = { username: 'ops', password: 'ops-pass-1234' };

const admin = await openConsole();
const { gw, page } = admin;
await seedUser(gw.ctx, { quota: 0, role: Role.Admin, ...ADMIN });
await loginViaApi(page, gw.url, ADMIN, '/setting?tab=system');

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
