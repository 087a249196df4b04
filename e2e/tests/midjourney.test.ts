import { afterAll, describe, expect, test } from 'vitest';
import { relayState } from '../../server/src/relay/relay-state.ts';
import { midjourneyTasks } from '../../server/src/relay/tasks/midjourney/refresh.ts';
import { type MidjourneyProxy, startMidjourneyProxy } from '../../server/test/support/mock-midjourney.ts';
import { loginViaApi, openConsole, ROOT, shootAll } from '../support/index.ts';
import * as taskLog from '../support/task-log.ts';

/** The drawing log (/midjourney) with real tasks relayed through a midjourney-proxy stand-in. */

const SECRET = 'e2e-mj-secret';

let proxy: MidjourneyProxy;
const ids: Record<string, string> = {};

const rows = () => taskLog.rows(page);

const submit = async (apiKey: string, prompt: string) =>
  (await taskLog.submit<{ result: string }>(gw, apiKey, '/mj/submit/imagine', { prompt })).result;

proxy = await startMidjourneyProxy(SECRET);
// Animations on: the image preview's closing animation once left its mask over the page.
const opened = await openConsole({ env: { TASK_POLL_INTERVAL: '0' }, motion: true });
const { gw, page } = opened;
// The stand-in's image host is on loopback.
await gw.ctx.options.set('fetch_setting.allow_private_ip', 'true');
const { channelId, rootKey, aliceKey } = await taskLog.seedAccounts(gw, {
  type: 2,
  baseUrl: proxy.url,
  key: SECRET,
  models: ['mj_imagine', 'mj_upscale'],
});

ids.done = await submit(rootKey, 'a lighthouse on a cliff at sunset, oil painting');
ids.running = await submit(rootKey, 'a paper boat on a rainy street');
ids.failed = await submit(rootKey, 'something the moderators refuse');
proxy.refuseNext(23, '队列已满，请稍后尝试');
await submit(rootKey, 'a crowded queue');
ids.alice = await submit(aliceKey, 'alice draws a fox');
proxy.advance(ids.done, 'success');
proxy.advance(ids.running, 'progress', '62%');
proxy.advance(ids.failed, 'failure', '[Banned prompt] the prompt contains a banned word');
proxy.advance(ids.alice, 'success');
await midjourneyTasks.poll(relayState(gw.ctx));
// Alice's image can no longer be loaded (an expired upstream link).
await gw.ctx.db.db
  .updateTable('midjourneys')
  .set({ image_url: 'http://127.0.0.1:9/expired.png' })
  .where('mj_id', '=', ids.alice)
  .execute();

await loginViaApi(page, gw.url, ROOT, '/midjourney');

afterAll(async () => {
  await proxy?.close();
});

describe('drawing log', () => {
  test('an admin sees every task with its channel, status, progress and fail reason', async () => {
    await taskLog.expectAdminSeesAll(page, ids, channelId);
    expect(await rows().filter({ hasText: ids.running }).innerText()).toContain('62%');
    expect(await rows().filter({ hasText: ids.done }).innerText()).toContain('成功');
    const refused = rows().filter({ hasText: '队列已满' });
    expect(await refused.innerText()).toContain('未知 (23)');
  });

  test('opens the result image in the viewer and the fail reason in a modal', async () => {
    const img = rows().filter({ hasText: ids.done }).locator('img');
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(96);
    await img.click();
    // Open with its opening motion done: the viewer listens for the key and nothing is still moving.
    await page.waitForFunction(() => {
      const viewer = document.querySelector('.ant-image-preview');
      return !!viewer?.querySelector('.ant-image-preview-img') && !/-(appear|enter)\b/.test(viewer.className);
    });
    await page.keyboard.press('Escape');
    // Gone, its mask with it, before the next click (a closing viewer's mask takes the clicks meant for the page).
    await page.locator('.ant-image-preview').waitFor({ state: 'detached' });
    await rows().filter({ hasText: ids.failed }).getByText('[Banned prompt]').click();
    const modal = page.locator('.ant-modal');
    await expect.poll(() => modal.innerText()).toContain('the prompt contains a banned word');
    await page.locator('.ant-modal-close').click();
    await expect.poll(() => page.locator('.ant-modal-wrap:visible').count()).toBe(0);
  });

  test('an image that cannot load shows a picture placeholder, not alt text broken over two lines', async () => {
    const cell = rows().filter({ hasText: ids.alice }).locator('.ant-image');
    const img = cell.locator('img');
    await expect.poll(() => img.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const box = await cell.boundingBox();
    expect(box?.height).toBeLessThanOrEqual(48);
    expect(await cell.innerText()).toBe('');
  });

  test('filters by task id', async () => {
    await taskLog.searchTaskId(page, ids.running);
    await shootAll(page, 'midjourney-admin', async (p) => {
      await expect.poll(() => p.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(5);
    });
  });

  test('a user sees only their own tasks, without the channel', async () => {
    await taskLog.expectAliceSeesOwnTask(page, gw, '/midjourney', ids.alice);
    await shootAll(page, 'midjourney-user');
  });
});
