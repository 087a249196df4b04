import type { Page } from 'playwright-core';

export const ROOT = { username: 'root', password: 'root-pass-1234' };

interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

async function json<T>(res: Response): Promise<Envelope<T>> {
  return (await res.json()) as Envelope<T>;
}

/** First-run setup straight through the API (for tests that are not about the setup page). */
export async function setupViaApi(
  base: string,
  root = ROOT,
  mode: 'external' | 'self' | 'demo' = 'external',
) {
  const res = await fetch(`${base}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: root.username,
      password: root.password,
      confirmPassword: root.password,
      SelfUseModeEnabled: mode === 'self',
      DemoSiteEnabled: mode === 'demo',
    }),
  });
  const body = await json<unknown>(res);
  if (!body.success) throw new Error(`setup failed: ${body.message}`);
}

/** First-run setup through the /setup page, as a person does it; ends on the home page. */
export async function setupViaUi(page: Page, base: string, root = ROOT) {
  await page.goto(`${base}/setup`);
  await page.locator('#setup_username').fill(root.username);
  await page.locator('#setup_password').fill(root.password);
  await page.locator('#setup_confirmPassword').fill(root.password);
  await page.locator('form#setup button[type=submit]').click();
  await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
}

/** Logs in through the /login page; ends on /token. */
export async function loginViaUi(page: Page, base: string, user: { username: string; password: string }) {
  await page.goto(`${base}/login`);
  await page.locator('#login_username').fill(user.username);
  await page.locator('#login_password').fill(user.password);
  await page.locator('form#login button[type=submit]').click();
  await page.waitForURL((url) => url.pathname === '/token', { timeout: 30_000 });
}

/**
 * Logs in with the API inside the page's browser context (so the session cookie lands in the browser)
 * and stores the user the way the login page does. Leaves the page on `path` (default /personal).
 */
export async function loginViaApi(
  page: Page,
  base: string,
  user: { username: string; password: string },
  path = '/personal',
) {
  const res = await page.context().request.post(`${base}/api/user/login`, { data: user });
  const body = (await res.json()) as Envelope<Record<string, unknown>>;
  if (!body.success) throw new Error(`login failed: ${body.message}`);
  // leave the current page first, so that none of its requests (a 401 redirect) interrupts the next load
  await page.goto('about:blank');
  await page.goto(`${base}/login`);
  await page.evaluate((u) => localStorage.setItem('user', JSON.stringify(u)), body.data);
  await page.goto(`${base}${path}`);
  return body.data;
}

/** Creates a user with an admin's session cookie (from `page`'s context); returns nothing, the name is the handle. */
export async function createUserViaApi(
  page: Page,
  base: string,
  adminId: number,
  user: { username: string; password: string; display_name?: string },
) {
  const res = await page
    .context()
    .request.post(`${base}/api/user/`, { data: user, headers: { 'New-API-User': String(adminId) } });
  const body = (await res.json()) as Envelope<unknown>;
  if (!body.success) throw new Error(`create user failed: ${body.message}`);
}
