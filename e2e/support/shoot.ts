import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { DESKTOP, LAPTOP, PHONE } from './browser.ts';
import { networkQuiet } from './network.ts';

/** Where files a test saves on purpose go (a download it reads back). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/**
 * Where screenshots go: `SHOTS_DIR`, or `e2e/artifacts/` with `SHOTS=1`; neither set (CI), no picture is taken,
 * since nobody opens them there and encoding full-page PNGs was most of the browser tier's time.
 */
export const SHOTS_DIR: string | undefined = process.env.SHOTS_DIR
  ? `${resolve(process.env.SHOTS_DIR)}/`
  : process.env.SHOTS === '1'
    ? ARTIFACTS
    : undefined;

const THEMES = ['light', 'dark'] as const;
const LANGS = ['zh', 'en'] as const;
const SIZES = [
  ['desktop', LAPTOP],
  ['phone', PHONE],
] as const;

/**
 * The language and theme pairs a sweep shows at each size, in an order that changes one setting at a time. With
 * pictures, all four. Without (CI), zh in light and en in dark: both languages' layouts (a theme changes colours,
 * not sizes) and both themes applied, at half the cost of all four.
 */
function combinations(): Array<[(typeof LANGS)[number], (typeof THEMES)[number]]> {
  if (!SHOTS_DIR)
    return [
      ['zh', 'light'],
      ['en', 'dark'],
    ];
  return [
    ['zh', 'light'],
    ['zh', 'dark'],
    ['en', 'dark'],
    ['en', 'light'],
  ];
}

/** How many combinations one sweep checks (and pictures it takes, when asked for). */
export const SWEEP_COMBINATIONS = SIZES.length * combinations().length;

/** Waits until the page has settled: network quiet, no spinner, fonts ready, animations done. */
export async function settle(page: Page) {
  await settled(page);
  // Kept for the tests that call it after an action in the page, where the network may already have been
  // quiet before the action's own requests began.
  await page.waitForTimeout(350);
}

/**
 * Network quiet, no spinner, fonts ready, and every animation that ends (a drawer sliding in, a fading message)
 * ended; endless ones (a spinning icon) are not waited for. Enough after a reload, where quiet means loaded.
 */
async function settled(page: Page) {
  await page.waitForLoadState('load').catch(() => {});
  await networkQuiet(page);
  await page
    .locator('.ant-spin-spinning')
    .first()
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => {});
  await page
    .evaluate(async () => {
      await document.fonts.ready;
      const ending = () =>
        document
          .getAnimations()
          .filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().endTime !== Infinity);
      // An ended animation may start the next one (a motion's leave after its enter): wait until none runs.
      for (let round = 0; round < 10; round++) {
        const running = ending();
        if (running.length === 0) return;
        await Promise.all(running.map((a) => a.finished.catch(() => {})));
        await new Promise(requestAnimationFrame);
      }
    })
    .catch(() => {});
}

/** Saves a picture of the page (its viewport, or `fullPage`) or of one element when pictures are asked for. */
export async function shot(target: Page | Locator, name: string, opts: { fullPage?: boolean } = {}) {
  if (!SHOTS_DIR) return;
  mkdirSync(SHOTS_DIR, { recursive: true });
  const path = `${SHOTS_DIR}${name}.png`;
  if ('goto' in target) await target.screenshot({ path, fullPage: opts.fullPage ?? false });
  else await target.screenshot({ path });
}

/**
 * What every combination must show: the language and theme asked for, and a page that does not scroll sideways
 * (wide content scrolls inside its own box). Returns the problems, empty when there are none.
 */
async function layoutProblems(page: Page, theme: string, lang: string): Promise<string[]> {
  return page.evaluate(
    ([t, l]) => {
      const problems: string[] = [];
      const want = l === 'en' ? 'en' : 'zh-CN';
      if (document.documentElement.lang !== want) problems.push(`lang ${document.documentElement.lang}`);
      if (document.body.getAttribute('theme-mode') !== t)
        problems.push(`theme ${document.body.getAttribute('theme-mode')}`);
      const overflow = document.documentElement.scrollWidth - window.innerWidth;
      if (overflow > 1) problems.push(`page scrolls sideways by ${overflow} px`);
      return problems;
    },
    [theme, lang] as const,
  );
}

/** Sets a stored preference the way another tab of the console does: the stored value and its `storage` event. */
async function switchStored(page: Page, key: string, value: string) {
  await page.evaluate(
    ([k, v]) => {
      localStorage.setItem(k, v);
      window.dispatchEvent(new StorageEvent('storage', { key: k, newValue: v, storageArea: localStorage }));
    },
    [key, value] as const,
  );
}

/**
 * Shows the current page in light/dark x zh/en x desktop(1366x900)/phone(390x844) (the pairs of `combinations()`
 * at each size) and checks each (language and theme applied, no sideways scrolling); with pictures asked for (`SHOTS=1` or `SHOTS_DIR`),
 * also saves full-page screenshots `<name>-<theme>-<lang>-<size>.png`. Each size is loaded at that size (a
 * reload, after which `prepare` runs, in Chinese); the language and the theme then change in place, as they do
 * when another tab of the console changes them (the page's state, such as an open drawer, stays). The previous
 * values and the viewport are restored afterwards with a reload. Returns the combinations as their file paths
 * (whether or not pictures were written).
 */
export async function shootAll(
  page: Page,
  name: string,
  /** Brings the page to the state to capture after each size's reload (opens a row, a tab ...). */
  prepare?: (page: Page) => Promise<void>,
): Promise<string[]> {
  const dir = SHOTS_DIR ?? ARTIFACTS;
  if (SHOTS_DIR) mkdirSync(SHOTS_DIR, { recursive: true });
  const before = await page.evaluate(() => ({
    theme: localStorage.getItem('theme-mode'),
    lang: localStorage.getItem('i18nextLng'),
  }));
  const viewport = page.viewportSize() ?? DESKTOP;
  const files: string[] = [];
  for (const [sizeName, size] of SIZES) {
    await page.setViewportSize(size);
    await page.evaluate(
      ([t, l]) => {
        localStorage.setItem('theme-mode', t);
        localStorage.setItem('i18nextLng', l);
      },
      [THEMES[0], LANGS[0]] as const,
    );
    await page.reload();
    await settled(page);
    if (prepare) {
      await prepare(page);
      await settled(page);
    }
    for (const [lang, theme] of combinations()) {
      const shown = await page.evaluate(() => ({
        lang: localStorage.getItem('i18nextLng'),
        theme: localStorage.getItem('theme-mode'),
      }));
      if (lang !== shown.lang) await switchStored(page, 'i18nextLng', lang);
      if (theme !== shown.theme) await switchStored(page, 'theme-mode', theme);
      if (lang !== shown.lang || theme !== shown.theme) {
        await expect
          .poll(() =>
            page.evaluate(
              () => `${document.documentElement.lang} ${document.body.getAttribute('theme-mode')}`,
            ),
          )
          .toBe(`${lang === 'en' ? 'en' : 'zh-CN'} ${theme}`);
        // A new language lays the page out anew; colours fade to a new theme, which only a picture waits for.
        if (lang !== shown.lang || SHOTS_DIR) await settled(page);
      }
      const combination = `${name}-${theme}-${lang}-${sizeName}`;
      expect(await layoutProblems(page, theme, lang), combination).toEqual([]);
      const file = `${dir}${combination}.png`;
      if (SHOTS_DIR) await page.screenshot({ path: file, fullPage: true });
      files.push(file);
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
