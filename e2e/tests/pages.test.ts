import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { drawingRow, taskRow } from '../../server/test/support/console-rows.ts';
import { seedToken } from '../../server/test/support/relay-seed.ts';
import {
  createUserViaApi,
  loginViaApi,
  type OpenedPage,
  openConsole,
  openPage,
  ROOT,
  settle,
  shootAll,
  todayAgo,
} from '../support/index.ts';

/** Spec 002's route table for each role, the content pages, the notice, the logs of drawings and tasks, chat links. */
const BOB = { username: 'bob', password: 'bob-pass-123' };
const PUBLIC = ['/', '/pricing', '/about', '/login', '/register', '/reset'];
const LOGIN = [
  '/token',
  '/playground',
  '/personal',
  '/topup',
  '/log',
  '/detail',
  '/midjourney',
  '/task',
  '/user/edit',
];
const ADMIN = ['/channel', '/channel/add', '/redemption', '/user', '/setting'];

let user: OpenedPage;
let admin: OpenedPage;
let rootId = 0;

const path = (p: Page) => new URL(p.url()).pathname;

// The seeded task rows are fixtures: the task loops would bring them to an end (their channels do not exist).
const visitor = await openConsole({ env: { TASK_POLL_INTERVAL: '0' } });
const { gw, browser } = visitor;
await gw.ctx.options.set(
  'HomePageContent',
  '# Welcome to the e2e gateway\n\nCheap **models** for everyone.<script>window.hacked = true</script>',
);
await gw.ctx.options.set('About', '## About us\n\nRun by the e2e team.');
await gw.ctx.options.set('Notice', 'Maintenance on **Sunday**.');
admin = await openPage(browser);
user = await openPage(browser);
const root = await loginViaApi(admin.page, gw.url, ROOT, '/');
rootId = Number(root.id);
await createUserViaApi(admin.page, gw.url, rootId, BOB);
await loginViaApi(user.page, gw.url, BOB, '/');

const t0 = Date.now();
const bobId = Number(
  (
    await gw.ctx.db.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', BOB.username)
      .executeTakeFirstOrThrow()
  ).id,
);
await gw.ctx.db.db
  .insertInto('midjourneys')
  .values(
    [
      {
        code: 1,
        user_id: bobId,
        action: 'IMAGINE',
        mj_id: 'mj-ok-1',
        prompt: 'a red fox in snow',
        prompt_en: 'a red fox in snow',
        submit_time: t0 - 90_000,
        finish_time: t0 - 20_000,
        status: 'SUCCESS',
        progress: '100%',
        channel_id: 3,
        image_url: '',
      },
      {
        code: 22,
        user_id: bobId,
        action: 'UPSCALE',
        mj_id: 'mj-bad-2',
        prompt: 'upscale',
        prompt_en: '',
        submit_time: t0 - 60_000,
        finish_time: t0 - 50_000,
        status: 'FAILURE',
        progress: '40%',
        channel_id: 4,
        fail_reason: 'upstream refused the job',
        image_url: '',
      },
    ].map(drawingRow),
  )
  .execute();
// The task page opens on today from midnight.
const ago = todayAgo(30);
await gw.ctx.db.db
  .insertInto('tasks')
  .values(
    [
      {
        created_at: ago(0),
        task_id: 'suno-1',
        platform: 'suno',
        user_id: bobId,
        channel_id: 5,
        action: 'MUSIC',
        status: 'SUCCESS',
        submit_time: ago(30),
        finish_time: ago(5),
        progress: '100%',
      },
      {
        created_at: ago(0),
        task_id: 'suno-2',
        platform: 'suno',
        user_id: bobId,
        channel_id: 5,
        action: 'LYRICS',
        status: '',
        submit_time: ago(10),
        finish_time: 0,
        progress: '10%',
      },
    ].map(taskRow),
  )
  .execute();

describe('route table', () => {
  test('a visitor sees the public pages and is sent to /login elsewhere', async () => {
    const { page } = visitor;
    for (const p of PUBLIC) {
      await page.goto(`${gw.url}${p}`);
      await settle(page);
      expect(path(page), p).toBe(p);
    }
    for (const p of [...LOGIN, ...ADMIN]) {
      await page.goto(`${gw.url}${p}`);
      await expect.poll(() => path(page), { message: p, timeout: 15_000 }).toBe('/login');
    }
  });

  test('a user opens the console pages and is refused the admin ones', async () => {
    const { page } = user;
    for (const p of LOGIN) {
      await page.goto(`${gw.url}${p}`);
      await settle(page);
      expect(path(page), p).toBe(p);
      expect(await page.getByText('无权访问').count(), p).toBe(0);
    }
    for (const p of ADMIN) {
      await page.goto(`${gw.url}${p}`);
      await expect.poll(() => page.getByText('无权访问').count(), { message: p, timeout: 15_000 }).toBe(1);
    }
  });

  test('an admin opens the admin pages', async () => {
    const { page } = admin;
    for (const p of ADMIN) {
      await page.goto(`${gw.url}${p}`);
      await settle(page);
      expect(page.url(), p).toContain(p);
      expect(await page.getByText('无权访问').count(), p).toBe(0);
    }
  });
});

describe('content pages', () => {
  test('home renders the admin markdown sanitised, and the notice shows once per change', async () => {
    const { page } = visitor;
    await page.goto(`${gw.url}/`);
    await settle(page);
    await expect
      .poll(() => page.getByRole('heading', { name: 'Welcome to the e2e gateway' }).count())
      .toBe(1);
    expect(await page.evaluate(() => (window as unknown as { hacked?: boolean }).hacked)).toBeUndefined();
    const notice = page.locator('.ant-modal').filter({ hasText: 'Maintenance on' });
    await expect.poll(() => notice.count()).toBe(1);
    await notice.getByRole('button').last().click();
    await page.reload();
    await settle(page);
    expect(await page.locator('.ant-modal').filter({ hasText: 'Maintenance on' }).count()).toBe(0);

    await gw.ctx.options.set('Notice', 'New prices from **Monday**.');
    await page.reload();
    await expect
      .poll(() => page.locator('.ant-modal').filter({ hasText: 'New prices from' }).count())
      .toBe(1);
    await page
      .locator('.ant-modal')
      .filter({ hasText: 'New prices from' })
      .getByRole('button')
      .last()
      .click();
    await shootAll(page, 'home');
  });

  test('about shows the admin text, and the default home when nothing is set', async () => {
    const { page } = visitor;
    await page.goto(`${gw.url}/about`);
    await expect
      .poll(() => page.getByRole('heading', { name: 'About us' }).count(), { timeout: 15_000 })
      .toBe(1);
    await shootAll(page, 'about');
    await gw.ctx.options.set('HomePageContent', '');
    await page.goto(`${gw.url}/`);
    await expect
      .poll(() => page.getByRole('button', { name: '查看价格' }).count(), { timeout: 15_000 })
      .toBe(1);
    await shootAll(page, 'home-default');
  });
});

describe('drawing and task logs', () => {
  test('a user sees their drawing jobs without the channel column', async () => {
    const { page } = user;
    await page.goto(`${gw.url}/midjourney`);
    await settle(page);
    await expect.poll(() => page.locator('tr').filter({ hasText: 'mj-ok-1' }).count()).toBe(1);
    expect(await page.getByRole('columnheader', { name: '渠道' }).count()).toBe(0);
    await page.getByText('upstream refused the job').click();
    await expect.poll(() => page.locator('.ant-modal').filter({ hasText: '失败原因' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await shootAll(page, 'midjourney');
  });

  test('an admin sees the channel and the callback banner', async () => {
    const { page } = admin;
    await page.goto(`${gw.url}/midjourney`);
    await settle(page);
    await expect.poll(() => page.getByRole('columnheader', { name: '渠道' }).count()).toBe(1);
    await expect.poll(() => page.getByText('当前未开启 Midjourney 回调').count()).toBe(1);
  });

  test('tasks show their state, and an empty status reads "submitting"', async () => {
    const { page } = user;
    await page.goto(`${gw.url}/task`);
    await settle(page);
    await expect
      .poll(() => page.locator('tr').filter({ hasText: 'suno-2' }).getByText('提交中').count())
      .toBe(1);
    await page.getByText('suno-1').click();
    await expect
      .poll(() => page.locator('.ant-modal pre').filter({ hasText: '"task_id": "suno-1"' }).count())
      .toBe(1);
    await page.keyboard.press('Escape');
    await shootAll(page, 'task');
  });
});

describe('chat links', () => {
  test('/chat/0 frames the first chat link with the address and the first enabled key', async () => {
    await gw.ctx.options.set(
      'Chats',
      JSON.stringify([{ Local: `${gw.url}/about?key={key}&address={address}` }]),
    );
    await gw.ctx.options.set('ServerAddress', 'https://gw.example.com');
    const token = await seedToken(gw.ctx, { userId: rootId, remain: 1000 });
    const { page } = admin;
    await page.goto(`${gw.url}/chat/0`);
    const frame = page.locator('iframe');
    await expect.poll(() => frame.count()).toBe(1);
    const src = (await frame.getAttribute('src')) ?? '';
    expect(src).toContain(`key=${token.apiKey}`);
    expect(src).toContain(`address=${encodeURIComponent('https://gw.example.com')}`);
    expect(await frame.getAttribute('allow')).toContain('microphone');
  });
});
