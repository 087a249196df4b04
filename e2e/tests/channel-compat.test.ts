import { ChannelType } from '@modelgate/shared';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { type CompatMock, startCompatMock } from '../../server/test/support/mock-compat.ts';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import {
  LAPTOP,
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  SWEEP_COMBINATIONS,
  settle,
  shootAll,
} from '../support/index.ts';

/**
 * Issue 30 point 3: the compatibility check of a channel, opened beside "test" on the channels page: the
 * estimated cost before a run, the run, and the matrix of scripts by client format with the reasons of the
 * cells that failed. The channel's provider ignores tools, so the tool cells fail and the rest pass.
 */

const modal = () => page.getByRole('dialog');

/** Opens the check from the test button's menu of the channel's row. */
async function openCheck(p: Page) {
  const row = p.locator(`tr[data-row-key="${channelId}"]`);
  await row.locator('button:has(.anticon-down)').click();
  await p
    .locator('.ant-dropdown-menu-item')
    .filter({ hasText: /Compatibility check|兼容性检查/ })
    .click();
  await poll(() => p.getByRole('dialog').locator('.ant-table-row').count()).toBe(5);
}

const mock: CompatMock = await startCompatMock();
mock.dropTools = true;
const opened = await openConsole({ locale: 'en-US', viewport: LAPTOP });
const { gw, page } = opened;
await gw.ctx.options.set('ModelRatio', JSON.stringify({ 'claude-sonnet-4-5': 1.5 }));
await gw.ctx.options.set('CompletionRatio', JSON.stringify({ 'claude-sonnet-4-5': 5 }));
const { id: channelId } = await seedChannel(gw.ctx, {
  type: ChannelType.Anthropic,
  baseUrl: mock.url,
  key: 'sk-ant-mock',
  models: ['claude-sonnet-4-5'],
  name: 'claude via proxy',
});
await gw.ctx.db.db
  .updateTable('users')
  .set({ quota: 50_000_000 })
  .where('username', '=', ROOT.username)
  .execute();
await loginViaApi(page, gw.url, ROOT, '/channel');

afterAll(async () => {
  await mock?.close();
});

describe('channel compatibility check', () => {
  test('says what a run costs, runs it, and shows the matrix with the reasons of what failed', async () => {
    await settle(page);
    const row = page.locator(`tr[data-row-key="${channelId}"]`);
    await row.locator('button:has(.anticon-down)').click();
    await page.locator('.ant-dropdown-menu-item').filter({ hasText: 'Compatibility check' }).click();
    await poll(() => modal().innerText()).toMatch(
      /Estimated cost: at most \$[\d.]+ \(28 requests, model claude-sonnet-4-5\)/,
    );
    await poll(() => modal().innerText()).toContain('This check has not been run yet.');

    await modal().getByRole('button', { name: 'Run check' }).click();
    const confirm = page.locator('.ant-popconfirm');
    await poll(() => confirm.innerText()).toMatch(/spends at most \$[\d.]+ on this channel/);
    await confirm.getByRole('button', { name: 'OK' }).click();
    await poll(() => page.locator('.ant-message').innerText(), 60_000).toContain(
      'Check done: 12 passed, 8 failed',
    );

    const rows = modal().locator('.ant-table-row');
    await poll(() => rows.count()).toBe(5);
    expect(await rows.nth(0).innerText()).toMatch(/Plain answer\s+Pass\s+Pass\s+Pass\s+Pass/);
    expect(await rows.nth(2).innerText()).toMatch(/Tool round trip\s+Fail\s+Fail\s+Fail\s+Fail/);
    expect(await rows.nth(3).innerText()).toMatch(/Thinking \+ tool\s+Fail\s+Fail\s+Fail\s+Fail/);
    expect(await modal().innerText()).toContain('Why cells failed or were skipped');
    expect(await modal().innerText()).toContain('first turn: missing tool call');
    expect(await modal().innerText()).toContain('Tool round trip · Anthropic · Missing tool call');
    expect(await page.getByTestId('compat-last').innerText()).toMatch(
      /manual · model claude-sonnet-4-5 · charged \$/,
    );

    // The reason of a failed cell is on its tag too.
    await rows.nth(2).locator('.ant-tag').nth(1).hover();
    await poll(() => page.locator('.ant-tooltip:visible').innerText()).toContain('missing tool call');
    expect(opened.errors).toEqual([]);
  });

  test('screenshots in light and dark, zh and en, desktop and phone', async () => {
    await page.keyboard.press('Escape');
    const files = await shootAll(page, 'channel-compat', openCheck);
    expect(files).toHaveLength(SWEEP_COMBINATIONS);
  });
});
