import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seedChannel, seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import { loginViaApi } from './accounts.ts';
import { rootApiKey } from './api-keys.ts';
import type { Gateway } from './gateway.ts';
import { settle } from './shoot.ts';

/**
 * What the task-log files (the drawing log at /midjourney, the task log at /task) share: the accounts that
 * submit tasks through a stand-in upstream, and the log's search and per-user view.
 */

/** The second user, who sees only her own tasks. */
export const ALICE = { username: 'alice', password: 'alice-pass-1234' };

/** The log's table rows. */
export const rows = (page: Page) => page.locator('.ant-table-tbody tr.ant-table-row');

/**
 * The task channel on the stand-in, and the API keys that submit through it: root's and Alice's, each an
 * unlimited token of a user with 5,000,000 quota.
 */
export async function seedAccounts(
  gw: Gateway,
  channel: { type: number; baseUrl: string; key: string; models: string[] },
): Promise<{ channelId: number; rootKey: string; aliceKey: string }> {
  const { id: channelId } = await seedChannel(gw.ctx, channel);
  const rootKey = await rootApiKey(gw, 5_000_000);
  const alice = await seedUser(gw.ctx, { quota: 5_000_000, ...ALICE });
  const aliceKey = (await seedToken(gw.ctx, { userId: alice.id, unlimited: true })).apiKey;
  return { channelId, rootKey, aliceKey };
}

/** A submit to the gateway with an API key (`path` from the root, a JSON body); the answer's JSON. */
export async function submit<T>(gw: Gateway, apiKey: string, path: string, body: object): Promise<T> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** Searches the log for one task id and waits for its one row. */
export async function searchTaskId(page: Page, id: string) {
  await page.getByPlaceholder('任务 ID').fill(id);
  await page.getByRole('button', { name: /查\s*询|搜\s*索/ }).click();
  await expect.poll(() => rows(page).count()).toBe(1);
  expect(await rows(page).first().innerText()).toContain(id);
}

/**
 * Logs Alice in on the log at `path`: one row, her task `id`, and neither the channel filter nor the channel
 * column.
 */
export async function expectAliceSeesOwnTask(page: Page, gw: Gateway, path: string, id: string) {
  await loginViaApi(page, gw.url, ALICE, path);
  await settle(page);
  await expect.poll(() => rows(page).count()).toBe(1);
  expect(await rows(page).first().innerText()).toContain(id);
  expect(await page.getByPlaceholder('渠道 ID').count()).toBe(0);
  expect(await page.locator('.ant-table-thead').innerText()).not.toContain('渠道');
}

/**
 * The admin's view of the log with the five tasks of `ids`: every one listed under a channel column, each row
 * naming the channel, and the failed one said to have failed, its progress in the error colour.
 */
export async function expectAdminSeesAll(page: Page, ids: Record<string, string>, channelId: number) {
  await settle(page);
  await expect.poll(() => rows(page).count()).toBe(5);
  const text = await page.locator('.ant-table').innerText();
  expect(text).toContain('渠道');
  for (const id of Object.values(ids)) expect(text).toContain(id);
  const failedRow = rows(page).filter({ hasText: ids.failed });
  expect(await failedRow.innerText()).toContain('失败');
  expect(await failedRow.locator('.ant-progress-status-exception').count()).toBe(1);
  expect(await page.locator('.ant-table-tbody').getByText(String(channelId), { exact: true }).count()).toBe(
    5,
  );
}
