import { afterAll, describe, expect, test } from 'vitest';
import { relayState } from '../../server/src/relay/relay-state.ts';
import { midjourneyTasks } from '../../server/src/relay/tasks/midjourney/refresh.ts';
import { type MidjourneyProxy, startMidjourneyProxy } from '../../server/test/support/mock-midjourney.ts';
import { seedChannel, seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, ROOT, settle, shootAll } from '../support/index.ts';

/** The drawing log (/midjourney) with real tasks relayed through a midjourney-proxy stand-in. */

const SECRET = 'e2e-mj-secret';
const ALICE = { username: 'alice', password: 'alice-pass-1234' };

let proxy: MidjourneyProxy;
let channelId = 0;
const ids: Record<string, string> = {};

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');

async function submit(apiKey: string, prompt: string): Promise<string> {
  const res = await fetch(`${gw.url}/mj/submit/imagine`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  return ((await res.json()) as { result: string }).result;
}

proxy = await startMidjourneyProxy(SECRET);
// Animations on: the image preview's closing animation once left its mask over the page.
const opened = await openConsole({ env: { TASK_POLL_INTERVAL: '0' }, motion: true });
const { gw, page } = opened;
// The stand-in's image host is on loopback.
await gw.ctx.options.set('fetch_setting.allow_private_ip', 'true');
({ id: channelId } = await seedChannel(gw.ctx, {
  type: 2,
  baseUrl: proxy.url,
  key: SECRET,
  models: ['mj_imagine', 'mj_upscale'],
}));
const root = await gw.ctx.db.db
  .selectFrom('users')
  .select(['id'])
  .where('username', '=', ROOT.username)
  .executeTakeFirstOrThrow();
await gw.ctx.db.db.updateTable('users').set({ quota: 5_000_000 }).where('id', '=', root.id).execute();
const rootKey = (await seedToken(gw.ctx, { userId: Number(root.id), unlimited: true })).apiKey;
const alice = await seedUser(gw.ctx, { quota: 5_000_000, ...ALICE });
const aliceKey = (await seedToken(gw.ctx, { userId: alice.id, unlimited: true })).apiKey;

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
    await settle(page);
    await expect.poll(() => rows().count()).toBe(5);
    const text = await page.locator('.ant-table').innerText();
    expect(text).toContain('渠道');
    for (const id of Object.values(ids)) expect(text).toContain(id);
    const failedRow = rows().filter({ hasText: ids.failed });
    expect(await failedRow.innerText()).toContain('失败');
    expect(await failedRow.locator('.ant-progress-status-exception').count()).toBe(1);
    expect(await rows().filter({ hasText: ids.running }).innerText()).toContain('62%');
    expect(await rows().filter({ hasText: ids.done }).innerText()).toContain('成功');
    const refused = rows().filter({ hasText: '队列已满' });
    expect(await refused.innerText()).toContain('未知 (23)');
    expect(await page.locator('.ant-table-tbody').getByText(String(channelId), { exact: true }).count()).toBe(
      5,
    );
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
    await page.getByPlaceholder('任务 ID').fill(ids.running);
    await page.getByRole('button', { name: /查\s*询|搜\s*索/ }).click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain(ids.running);
    await shootAll(page, 'midjourney-admin', async (p) => {
      await expect.poll(() => p.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(5);
    });
  });

  test('a user sees only their own tasks, without the channel', async () => {
    await loginViaApi(page, gw.url, ALICE, '/midjourney');
    await settle(page);
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain(ids.alice);
    expect(await page.getByPlaceholder('渠道 ID').count()).toBe(0);
    expect(await page.locator('.ant-table-thead').innerText()).not.toContain('渠道');
    await shootAll(page, 'midjourney-user');
  });
});
