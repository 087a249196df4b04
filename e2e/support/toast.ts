import type { Page } from 'playwright-core';

/** The console's toasts (antd messages) that contain `text`. */
export function toast(page: Page, text: string) {
  return page.locator('.ant-message').getByText(text, { exact: false });
}

/**
 * Does `action` and waits until a toast containing `text` shows. The page watches for it from before the action
 * on: a toast stays up for three seconds, and on a busy machine a poll from the test may not come round in time.
 */
export async function toastAfter(page: Page, text: string, action: () => Promise<unknown>) {
  const shown = toast(page, text).first().waitFor({ state: 'attached', timeout: 30_000 });
  try {
    await action();
  } catch (err) {
    shown.catch(() => {}); // the action's failure is the one to report
    throw err;
  }
  await shown;
}
