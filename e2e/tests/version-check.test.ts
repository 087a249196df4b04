import { afterAll, describe, expect, test } from 'vitest';
import { type MockRelease, startMockRelease } from '../../server/test/support/mock-release.ts';
import {
  loginViaApi,
  openConsole,
  openPage,
  poll,
  ROOT,
  settle,
  setupViaApi,
  shootAll,
  startGateway,
} from '../support/index.ts';

/** "Check for updates" beside the version on /setting?tab=other, against a local mock release endpoint. */
let release: MockRelease;

const box = () => page.getByTestId('version-check');
const checkButton = () => box().getByRole('button', { name: /Check for updates|检查更新/ });

release = await startMockRelease({ tag_name: 'v99.2.0', body: '- A faster relay\n- Clearer tables' });
const admin = await openConsole({ env: { VERSION_CHECK_URL: release.url }, locale: 'en-US' });
const { gw, browser, page } = admin;
await loginViaApi(page, gw.url, ROOT, '/setting?tab=other');

afterAll(async () => {
  await release?.close();
});

describe('version check', () => {
  test('shows the newer release with its notes beside the running version', async () => {
    await settle(page);
    await poll(() => box().innerText()).toMatch(/^v\d/);
    await checkButton().click();
    await poll(() => box().innerText()).toContain('A new version is out: v99.2.0');
    expect(await box().innerText()).toContain('A faster relay');
    const link = box().getByRole('link', { name: 'Open the release page' });
    expect(await link.getAttribute('href')).toBe('https://example.com/releases/tag/v99.2.0');
    expect(release.hits).toBe(1);
    await shootAll(page, 'version-check', async (p) => {
      await p.getByTestId('version-check').getByRole('button').click();
      await p.getByTestId('version-check').locator('.ant-alert').waitFor();
    });
    expect(admin.errors).toEqual([]);
  });

  test('says clearly that it could not check when the release server is offline', async () => {
    await release.close();
    await page.reload();
    await settle(page);
    await checkButton().click();
    await poll(() => box().innerText()).toContain('Failed to check for updates');
    expect(await box().innerText()).toContain('could not reach the release server');
    expect(await box().innerText()).not.toContain('A new version is out');
  });
});

describe('version check without a release address', () => {
  test('the button is disabled and says why', async () => {
    const off = await startGateway();
    try {
      await setupViaApi(off.url);
      const p = await openPage(browser, { locale: 'en-US' });
      await loginViaApi(p.page, off.url, ROOT, '/setting?tab=other');
      const b = p.page.getByTestId('version-check');
      await poll(() => b.innerText()).toContain('No release address is configured (VERSION_CHECK_URL)');
      expect(await b.getByRole('button', { name: 'Check for updates' }).isDisabled()).toBe(true);
      await p.context.close();
    } finally {
      await off.stop();
    }
  });
});
