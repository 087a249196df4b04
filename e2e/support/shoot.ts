import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { DESKTOP, LAPTOP, PHONE } from './browser.ts';

export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

const THEMES = ['light', 'dark'] as const;
const LANGS = ['zh', 'en'] as const;
const SIZES = [
  ['desktop', LAPTOP],
  ['phone', PHONE],
] as const;

/** Waits until the page has settled: network quiet, no spinner, fonts ready, animations done. */
export async function settle(page: Page) {
  await page.waitForLoadState('networkidle').catch(() => {});
  await page
    .locator('.ant-spin-spinning')
    .first()
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => {});
  await page.evaluate(() => document.fonts.ready).catch(() => {});
  await page.waitForTimeout(350);
}

/**
 * Saves light/dark x zh/en x desktop(1366x900)/phone(390x844) full-page screenshots of the current page
 * as `e2e/artifacts/<name>-<theme>-<lang>-<size>.png`. Theme and language are set the way the console
 * keeps them (`theme-mode`, `i18nextLng` in local storage) followed by a reload; the previous values and
 * the viewport are restored afterwards; `prepare` runs after each reload. Returns the file paths.
 */
export async function shootAll(
  page: Page,
  name: string,
  /** Brings the page to the state to capture after each reload (opens a row, a tab ...). */
  prepare?: (page: Page) => Promise<void>,
): Promise<string[]> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const before = await page.evaluate(() => ({
    theme: localStorage.getItem('theme-mode'),
    lang: localStorage.getItem('i18nextLng'),
  }));
  const viewport = page.viewportSize() ?? DESKTOP;
  const files: string[] = [];
  for (const [sizeName, size] of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      for (const lang of LANGS) {
        await page.evaluate(
          ([t, l]) => {
            localStorage.setItem('theme-mode', t);
            localStorage.setItem('i18nextLng', l);
          },
          [theme, lang] as const,
        );
        await page.reload();
        await settle(page);
        if (prepare) {
          await prepare(page);
          await settle(page);
        }
        const file = `${ARTIFACTS}${name}-${theme}-${lang}-${sizeName}.png`;
        await page.screenshot({ path: file, fullPage: true });
        files.push(file);
      }
    }
  }
  await page.evaluate((b) => {
    if (b.theme === null) localStorage.removeItem('theme-mode');
    else localStorage.setItem('theme-mode', b.theme);
    if (b.lang === null) localStorage.removeItem('i18nextLng');
    else localStorage.setItem('i18nextLng', b.lang);
  }, before);
  await page.setViewportSize(viewport);
  await page.reload();
  await settle(page);
  return files;
}
