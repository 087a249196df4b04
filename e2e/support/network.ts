import type { BrowserContext, Page, Request } from 'playwright-core';

/** The requests of one browser context still in flight, and when that count last changed. */
interface Traffic {
  inFlight: Set<Request>;
  changedAt: number;
  changes: number;
}

const traffic = new WeakMap<BrowserContext, Traffic>();

/** Starts counting a context's requests (support/browser.ts does it for every context it opens). */
export function trackRequests(context: BrowserContext) {
  const t: Traffic = { inFlight: new Set(), changedAt: Date.now(), changes: 0 };
  const changed = () => {
    t.changedAt = Date.now();
    t.changes++;
  };
  context.on('request', (r) => {
    t.inFlight.add(r);
    changed();
  });
  const done = (r: Request) => {
    if (t.inFlight.delete(r)) changed();
  };
  context.on('requestfinished', done);
  context.on('requestfailed', done);
  traffic.set(context, t);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the page's context has had no request in flight for `quietMs`, and none started while the page
 * drew its next frame (so work queued behind a busy page, such as a React effect's fetch, is seen). Playwright's
 * `networkidle` asks for 500 ms of quiet every time; this asks for what the console needs. A context not
 * tracked (opened without support/browser.ts) falls back to `networkidle`. Gives up quietly after `timeout`
 * (a stream left open), as `networkidle` does for the callers that catch it.
 */
export async function networkQuiet(page: Page, quietMs = 150, timeout = 10_000) {
  const t = traffic.get(page.context());
  if (!t) {
    await page.waitForLoadState('networkidle', { timeout }).catch(() => {});
    return;
  }
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (t.inFlight.size > 0 || Date.now() - t.changedAt < quietMs) {
      await pause(25);
      continue;
    }
    const mark = t.changes;
    await page
      .evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
      .catch(() => {});
    if (t.changes === mark && t.inFlight.size === 0) return;
  }
}
