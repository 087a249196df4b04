import type { Page } from 'playwright-core';

/** The console's toasts (antd messages) that contain `text`. */
export function toast(page: Page, text: string) {
  return page.locator('.ant-message').getByText(text, { exact: false });
}

/**
 * Does `action` and waits until a toast containing `text` shows. The page watches for it from before the action
 * on: a toast stays up for three seconds, and on a busy machine a poll from the test may not come round in time.
 * When it never shows, the error says what the page showed instead: the first toast after the action and the
 * form fields' errors (a save the form refused before sending shows those, not the server's answer).
 */
export async function toastAfter(page: Page, text: string, action: () => Promise<unknown>) {
  const shown = toast(page, text).first().waitFor({ state: 'attached', timeout: 30_000 });
  const firstToast = page
    .locator('.ant-message-notice')
    .first()
    .textContent({ timeout: 30_000 })
    .catch(() => null);
  try {
    await action();
  } catch (err) {
    shown.catch(() => {}); // the action's failure is the one to report
    throw err;
  }
  try {
    await shown;
  } catch (err) {
    const fieldErrors = await page
      .locator('.ant-form-item-explain-error')
      .allTextContents()
      .catch(() => []);
    const seen = await firstToast;
    throw new Error(
      `no toast with "${text}"; first toast after the action: ${JSON.stringify(seen)}; field errors: ${JSON.stringify(fieldErrors)}`,
      { cause: err },
    );
  }
}
