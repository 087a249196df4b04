import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** The laptop screen the console is checked on (issue 27): tables must fit it without sideways scrolling. */
export const LAPTOP = { width: 1366, height: 900 };

/** Debian's chromium, headless, with the flags this machine needs (no browser downloads). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors seen so far (assert it stays empty where that matters). */
  errors: string[];
}

/**
 * A fresh browser context (own cookies and local storage) at the desktop size with a Chinese locale,
 * so the console starts in zh as most of its users see it. Pass `locale: 'en-US'` for English.
 */
export async function openPage(
  browser: Browser,
  opts: { locale?: string; viewport?: { width: number; height: number } } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    locale: opts.locale ?? 'zh-CN',
    viewport: opts.viewport ?? DESKTOP,
  });
  const page = await context.newPage();
  // Fail reasonably fast, with room for a machine busy with other test runs.
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return { context, page, errors };
}
