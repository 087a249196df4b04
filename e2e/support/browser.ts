import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type BrowserServer, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { trackRequests } from './network.ts';

/**
 * Debian's headless shell (package chromium-headless-shell) when installed, else chromium itself. The shell is
 * the same Blink and V8 without the desktop browser around them: about a fifth less CPU per test file here.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ||
  (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** The laptop screen the console is checked on (issue 27): tables must fit it without sideways scrolling. */
export const LAPTOP = { width: 1366, height: 900 };

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // No optimising JIT (baseline code only): a test's page runs its scripts briefly, and Maglev and Turbofan
  // compiling them cost more CPU than they saved (about a sixth of the renderer's CPU per test file).
  '--js-flags=--max-opt=1',
];

/** Debian's chromium, headless, with the flags this machine needs (no browser downloads), as a server. */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM_PATH, args: ARGS });
}

/** The shared chromium's endpoint when the run has one (the e2e project's global setup). */
function sharedEndpoint(): string | undefined {
  try {
    return inject('chromiumWs') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The browser for a test file: a connection to the run's one chromium (launched by the global setup), or a
 * chromium of its own outside such a run. Either way `close()` at the end of the file is right: on a shared
 * browser it closes this file's contexts and disconnects, leaving the browser to the next file.
 */
export function launchBrowser(): Promise<Browser> {
  const ws = sharedEndpoint();
  if (ws) return chromium.connect(ws);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
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
 * The system asks for reduced motion, so the console shows drawers and messages without animating them
 * (the layout is the same, and a busy machine does not draw frames nobody looks at); `motion: true` keeps them.
 */
export async function openPage(
  browser: Browser,
  opts: { locale?: string; viewport?: { width: number; height: number }; motion?: boolean } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    locale: opts.locale ?? 'zh-CN',
    viewport: opts.viewport ?? DESKTOP,
    reducedMotion: opts.motion ? 'no-preference' : 'reduce',
  });
  trackRequests(context);
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
