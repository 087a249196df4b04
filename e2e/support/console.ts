import type { Browser } from 'playwright-core';
import { loginViaApi, ROOT, setupViaApi } from './accounts.ts';
import { launchBrowser, type OpenedPage, openPage } from './browser.ts';
import { closeAtEnd } from './close-at-end.ts';
import { type Gateway, startGateway } from './gateway.ts';

export interface ConsoleOptions {
  /** Environment of the gateway (same names as in production). */
  env?: Record<string, string>;
  /** First-run setup through the API with ROOT (the default); false leaves the gateway on /setup. */
  setup?: boolean;
  /** Logs `user` (ROOT by default) in through the API and opens `path` (default /personal). */
  login?: { user?: { username: string; password: string }; path?: string };
  locale?: string;
  viewport?: { width: number; height: number };
  /** Keep the console's animations (by default the context asks for reduced motion; see openPage). */
  motion?: boolean;
}

export interface Console extends OpenedPage {
  gw: Gateway;
  browser: Browser;
}

/**
 * What a browser test file starts from: its own gateway (fresh database), the run's chromium, and a page in a
 * context of its own; set up and logged in as asked. The browser and the gateway are closed after the file's
 * last test (support/close-at-end.ts), so a file needs no afterAll for them.
 */
export async function openConsole(opts: ConsoleOptions = {}): Promise<Console> {
  const gw = await startGateway(opts.env);
  closeAtEnd(() => gw.stop());
  if (opts.setup !== false) await setupViaApi(gw.url);
  const browser = await launchBrowser();
  closeAtEnd(() => browser.close());
  const opened = await openPage(browser, {
    locale: opts.locale,
    viewport: opts.viewport,
    motion: opts.motion,
  });
  if (opts.login) await loginViaApi(opened.page, gw.url, opts.login.user ?? ROOT, opts.login.path);
  return { gw, browser, ...opened };
}
